import { Module } from '@nestjs/common';
import { ChatfluxModule } from '../../src/nestjs/index.js';
import { ChatController } from './chat.controller.js';

/**
 * The example's root module: the chatflux client (from env, read when the app starts) with the three contract
 * endpoints under `/v1` (`POST /v1/chat/json`, `/v1/chat/stream`, `/v1/chat/sse`; OpenAI's `POST /v1/chat/completions`
 * and `GET /v1/models` there too), and a controller of our own.
 */
@Module({
  imports: [
    ChatfluxModule.forRootAsync({
      useFactory: () => ({
        client: {
          provider: 'openai-compatible',
          baseUrl: process.env['CHATFLUX_BASE_URL'],
          apiKey: process.env['CHATFLUX_API_KEY'],
          model: process.env['CHATFLUX_MODEL'] ?? 'deepseek-chat',
        },
      }),
      routes: { prefix: 'v1' },
    }),
  ],
  controllers: [ChatController],
})
export class AppModule {}
