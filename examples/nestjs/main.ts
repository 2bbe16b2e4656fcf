import 'reflect-metadata'; // first, once: Nest's decorators read what TypeScript records (emitDecoratorMetadata)
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

async function bootstrap(): Promise<void> {
  // bodyParser: false leaves the bodies to chatflux: the module's routes check the key, then parse under their own
  // bodyLimit (1 MB); the decorated handlers parse after the guards. Every refusal is in the endpoint's error format.
  const app = await NestFactory.create(AppModule, { bodyParser: false });
  // SIGTERM/SIGINT → app.close(): streams in flight get the module's grace period, then a `shutting_down` frame.
  app.enableShutdownHooks();
  await app.listen(Number(process.env['PORT'] ?? 3001), '127.0.0.1');
  console.log(`listening on ${await app.getUrl()}`);
}

void bootstrap();
