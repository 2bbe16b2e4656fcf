/**
 * A minimal NestJS app serving chatflux, against the built-in upstream emulator (or any OpenAI-compatible
 * provider when CHATFLUX_BASE_URL and CHATFLUX_API_KEY are set). Run: `npm run example:nestjs`.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { startEmulator } from '../../src/testing/startEmulator.js';
import { AppModule } from './app.module.js';

async function main(): Promise<void> {
  const emulator = process.env['CHATFLUX_BASE_URL'] === undefined ? await startEmulator({ dialect: 'deepseek' }) : undefined;
  if (emulator !== undefined) {
    process.env['CHATFLUX_BASE_URL'] = emulator.url;
    process.env['CHATFLUX_API_KEY'] ??= 'emulator';
  }
  // bodyParser: false leaves the bodies to chatflux: the module's routes check the key, then parse under their own
  // bodyLimit (1 MB); the decorated handlers parse after the guards. Every refusal is in the endpoint's error format.
  const app = await NestFactory.create(AppModule, { bodyParser: false });
  // SIGTERM/SIGINT → app.close(): streams in flight get the module's grace period, then a `shutting_down` frame.
  app.enableShutdownHooks();
  const port = Number(process.env['PORT'] ?? 3001);
  await app.listen(port, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  const body = `'{"messages":[{"role":"user","content":"Hello!"}]}'`;
  console.log(`chatflux NestJS example on ${base} (upstream: ${emulator === undefined ? process.env['CHATFLUX_BASE_URL'] : 'emulator'})`);
  for (const path of ['/v1/chat/json', '/v1/chat/stream', '/v1/chat/sse', '/assistant/ask', '/assistant/text']) {
    console.log(`  curl -N -X POST ${base}${path} -H 'Content-Type: application/json' -d ${body}`);
  }
}

void main();
