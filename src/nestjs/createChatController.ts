import { Controller, HttpCode, Inject, Post, Req, Res, SetMetadata, type Type } from '@nestjs/common';
import type { ChatClient } from '../client/createChatClient.js';
import type { WriteOutcome } from '../node/index.js';
import { CHAT_ROUTE, type ChatRoute } from './CHAT_ROUTE.js';
import { CHATFLUX_CLIENT } from './CHATFLUX_CLIENT.js';
import { CHATFLUX_MODULE_CONFIG } from './CHATFLUX_MODULE_CONFIG.js';
import type { ChatfluxModuleConfig } from './ChatfluxModuleConfig.js';
import { ChatfluxShutdown } from './ChatfluxShutdown.js';
import type { ChatWireFormat } from './ChatWireFormat.js';
import { serveChat, type ChatHttpRequest, type ChatRouteContext } from './serveChat.js';

/**
 * Creates the controller of `ChatfluxModule` serving `POST {prefix}/chat/json`, `{prefix}/chat/stream` and
 * `{prefix}/chat/sse`. Each handler takes the raw response (`@Res()`, no passthrough) and hands it to the node
 * writers, so Nest adds nothing to the wire: neither its 201 for POST nor its SSE plumbing.
 *
 * @param prefix The path prefix (`''` for none).
 * @returns A controller class to list in a module's `controllers`.
 */
export function createChatController(prefix: string): Type<unknown> {
  // Filled by the controller instance: what answers a body that Nest's parser refused before the route ran.
  let context: ChatRouteContext | undefined;
  const routeOf = (format: ChatWireFormat): ChatRoute => ({
    answerBodyError: (request, response, error) => {
      if (context !== undefined) void serveChat(format, context, request, response, error);
    },
  });

  @Controller(prefix)
  class ChatfluxController {
    private readonly context: ChatRouteContext;

    constructor(
      @Inject(CHATFLUX_CLIENT) client: ChatClient,
      @Inject(CHATFLUX_MODULE_CONFIG) config: ChatfluxModuleConfig,
      @Inject(ChatfluxShutdown) shutdown: ChatfluxShutdown,
    ) {
      this.context = context = { client, config, shutdown };
    }

    @Post('chat/json')
    @HttpCode(200)
    @SetMetadata(CHAT_ROUTE, routeOf('json'))
    json(@Req() req: ChatHttpRequest, @Res() res: unknown): Promise<WriteOutcome> {
      return serveChat('json', this.context, req, res);
    }

    @Post('chat/stream')
    @HttpCode(200)
    @SetMetadata(CHAT_ROUTE, routeOf('ndjson'))
    stream(@Req() req: ChatHttpRequest, @Res() res: unknown): Promise<WriteOutcome> {
      return serveChat('ndjson', this.context, req, res);
    }

    @Post('chat/sse')
    @HttpCode(200)
    @SetMetadata(CHAT_ROUTE, routeOf('sse'))
    sse(@Req() req: ChatHttpRequest, @Res() res: unknown): Promise<WriteOutcome> {
      return serveChat('sse', this.context, req, res);
    }
  }
  return ChatfluxController;
}
