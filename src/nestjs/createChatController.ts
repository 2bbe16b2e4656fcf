import { Controller, HttpCode, Inject, Post, Req, Res, type Type } from '@nestjs/common';
import type { ChatClient } from '../client/createChatClient.js';
import type { WriteOutcome } from '../node/index.js';
import { CHATFLUX_CLIENT } from './CHATFLUX_CLIENT.js';
import { CHATFLUX_MODULE_CONFIG } from './CHATFLUX_MODULE_CONFIG.js';
import type { ChatfluxModuleConfig } from './ChatfluxModuleConfig.js';
import { serveChat, type ChatHttpRequest } from './serveChat.js';

/**
 * Creates the controller of `ChatfluxModule` serving `POST {prefix}/chat/json`, `{prefix}/chat/stream` and
 * `{prefix}/chat/sse`. Each handler takes the raw response (`@Res()`, no passthrough) and hands it to the node
 * writers, so Nest adds nothing to the wire: neither its 201 for POST nor its SSE plumbing.
 *
 * @param prefix The path prefix (`''` for none).
 * @returns A controller class to list in a module's `controllers`.
 */
export function createChatController(prefix: string): Type<unknown> {
  @Controller(prefix)
  class ChatfluxController {
    constructor(
      @Inject(CHATFLUX_CLIENT) private readonly client: ChatClient,
      @Inject(CHATFLUX_MODULE_CONFIG) private readonly config: ChatfluxModuleConfig,
    ) {}

    @Post('chat/json')
    @HttpCode(200)
    json(@Req() req: ChatHttpRequest, @Res() res: unknown): Promise<WriteOutcome> {
      return serveChat('json', this.client, this.config, req, res);
    }

    @Post('chat/stream')
    @HttpCode(200)
    stream(@Req() req: ChatHttpRequest, @Res() res: unknown): Promise<WriteOutcome> {
      return serveChat('ndjson', this.client, this.config, req, res);
    }

    @Post('chat/sse')
    @HttpCode(200)
    sse(@Req() req: ChatHttpRequest, @Res() res: unknown): Promise<WriteOutcome> {
      return serveChat('sse', this.client, this.config, req, res);
    }
  }
  return ChatfluxController;
}
