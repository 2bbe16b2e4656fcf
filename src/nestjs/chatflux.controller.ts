import { Controller, Get, HttpCode, Inject, NotFoundException, Param, Post, Req, Res, SetMetadata, type Type } from '@nestjs/common';
import type { ChatClient } from '../client/createChatClient.js';
import type { ChatWireFormat } from '../node/CHAT_WIRES.js';
import { createChatEndpoints, type ChatEndpoints } from '../node/createChatEndpoints.js';
import type { WriteOutcome } from '../serve/WriteOutcome.js';
import { CHAT_ROUTE, CHATFLUX_CLIENT, CHATFLUX_MODULE_CONFIG } from './chatflux.constants.js';
import type { ChatfluxModuleConfig, ChatRoute } from './chatflux.interfaces.js';
import { ChatfluxShutdown } from './chatflux.shutdown.js';
import { nodeRequest, rawResponse } from './chatflux.utilities.js';

/**
 * Creates the controller of `ChatfluxModule` serving `POST {prefix}/chat/json`, `{prefix}/chat/stream` and
 * `{prefix}/chat/sse`, the AI SDK's `POST {prefix}/chat/ui` (`useChat`), `GET {prefix}/chat/sse?q=…` (`EventSource`; `?token=…` in place of the key), with
 * `apiKeys` `POST {prefix}/chat/token` (without keys: 404, as the Express router), and OpenAI's
 * `POST {prefix}/v1/chat/completions` and `GET {prefix}/v1/models`, and Anthropic's `POST {prefix}/v1/messages` and
 * `{prefix}/v1/messages/count_tokens` — or, when the prefix already ends in `v1` (`'v1'`, `'api/v1'`), the same
 * without the `v1/` (`POST {prefix}/chat/completions`, `GET {prefix}/models`, …): where an OpenAI client whose base
 * URL is `…/{prefix}` asks, never `/v1/v1/…`. A thin adapter: each handler takes the raw request and response (`@Req()`, `@Res()` without
 * passthrough) and hands them to the node endpoints (`createChatEndpoints` on the serving core, the Express router's too), so Nest adds
 * nothing to the wire: neither its 201 for POST nor its SSE plumbing.
 *
 * @param prefix The path prefix (`''` for none).
 * @returns A controller class to list in a module's `controllers`.
 */
export function createChatController(prefix: string): Type<unknown> {
  // Filled by the controller instance: what answers a body that Nest's parser refused before the route ran.
  let endpoints: ChatEndpoints | undefined;
  const routeOf = (wire: ChatWireFormat): ChatRoute => ({
    answerBodyError: (request, response, error) => void endpoints?.post(wire, request, response, { error }),
  });

  // OpenAI's endpoints live under a `v1` segment: the prefix's own, when it ends in one.
  const openAi = /(?:^|\/)v1\/*$/i.test(prefix) ? '' : 'v1/';

  const completionsRoute: ChatRoute = {
    answerBodyError: (request, response, error) => void endpoints?.completions(request, response, { error }),
  };
  const messagesRoute: ChatRoute = {
    answerBodyError: (request, response, error) => void endpoints?.messages(request, response, { error }),
  };
  const uiRoute: ChatRoute = {
    answerBodyError: (request, response, error) => void endpoints?.ui(request, response, { error }),
  };
  const countTokensRoute: ChatRoute = {
    answerBodyError: (request, response, error) => void endpoints?.countTokens(request, response, { error }),
  };

  @Controller(prefix)
  class ChatfluxController {
    private readonly endpoints: ChatEndpoints;

    constructor(
      @Inject(CHATFLUX_CLIENT) client: ChatClient,
      @Inject(CHATFLUX_MODULE_CONFIG) config: ChatfluxModuleConfig,
      @Inject(ChatfluxShutdown) shutdown: ChatfluxShutdown,
    ) {
      // The serving options pass through as they are; the module's own fields stay here, and the config's `signal`
      // is merged into the shutdown's (see the providers).
      const { client: _client, routes: _routes, global: _global, shutdownGraceMs: _grace, signal: _signal, ...serving } = config;
      this.endpoints = endpoints = createChatEndpoints({ ...serving, client, shutdown });
    }

    @Post('chat/json')
    @HttpCode(200)
    @SetMetadata(CHAT_ROUTE, routeOf('json'))
    json(@Req() req: unknown, @Res() res: unknown): Promise<WriteOutcome> {
      return this.serve('json', req, res);
    }

    @Post('chat/stream')
    @HttpCode(200)
    @SetMetadata(CHAT_ROUTE, routeOf('ndjson'))
    stream(@Req() req: unknown, @Res() res: unknown): Promise<WriteOutcome> {
      return this.serve('ndjson', req, res);
    }

    @Post('chat/sse')
    @HttpCode(200)
    @SetMetadata(CHAT_ROUTE, routeOf('sse'))
    sse(@Req() req: unknown, @Res() res: unknown): Promise<WriteOutcome> {
      return this.serve('sse', req, res);
    }

    @Post('chat/ui')
    @HttpCode(200)
    @SetMetadata(CHAT_ROUTE, uiRoute)
    ui(@Req() req: unknown, @Res() res: unknown): Promise<WriteOutcome> {
      const { req: node, platform } = nodeRequest(req);
      return this.endpoints.ui(node, rawResponse(res), platform);
    }

    @Get('chat/ui/:chatId/stream')
    uiResume(@Req() request: unknown, @Res() response: unknown, @Param('chatId') chatId: string): Promise<WriteOutcome> {
      return this.endpoints.uiResume(nodeRequest(request).req, rawResponse(response), chatId);
    }

    @Get('chat/sse')
    query(@Req() request: unknown, @Res() response: unknown): Promise<WriteOutcome> {
      const { req } = nodeRequest(request);
      const q = (request as { query?: Record<string, unknown> }).query?.['q'];
      return this.endpoints.query(req, rawResponse(response), q);
    }

    @Post('chat/token')
    @HttpCode(200)
    token(@Req() request: unknown, @Res() response: unknown): Promise<WriteOutcome> {
      if (!this.endpoints.servesTokens) throw new NotFoundException(); // the endpoints are open: no token to give, as the router
      return this.endpoints.token(nodeRequest(request).req, rawResponse(response));
    }

    @Get('chat/streams/:id')
    resume(@Req() request: unknown, @Res() response: unknown, @Param('id') id: string): Promise<WriteOutcome> {
      return this.endpoints.resume(nodeRequest(request).req, rawResponse(response), id);
    }

    @Post('chat/streams/:id/cancel')
    @HttpCode(200)
    cancel(@Req() request: unknown, @Res() response: unknown, @Param('id') id: string): Promise<WriteOutcome> {
      return this.endpoints.cancel(nodeRequest(request).req, rawResponse(response), id);
    }

    @Post(`${openAi}chat/completions`)
    @HttpCode(200)
    @SetMetadata(CHAT_ROUTE, completionsRoute)
    completions(@Req() req: unknown, @Res() res: unknown): Promise<WriteOutcome> {
      const { req: node, platform } = nodeRequest(req);
      return this.endpoints.completions(node, rawResponse(res), platform);
    }

    @Post(`${openAi}messages`)
    @HttpCode(200)
    @SetMetadata(CHAT_ROUTE, messagesRoute)
    messages(@Req() req: unknown, @Res() res: unknown): Promise<WriteOutcome> {
      const { req: node, platform } = nodeRequest(req);
      return this.endpoints.messages(node, rawResponse(res), platform);
    }

    @Post(`${openAi}messages/count_tokens`)
    @HttpCode(200)
    @SetMetadata(CHAT_ROUTE, countTokensRoute)
    countTokens(@Req() req: unknown, @Res() res: unknown): Promise<WriteOutcome> {
      const { req: node, platform } = nodeRequest(req);
      return this.endpoints.countTokens(node, rawResponse(res), platform);
    }

    @Get(`${openAi}models`)
    models(@Req() req: unknown, @Res() res: unknown): Promise<WriteOutcome> {
      return this.endpoints.models(nodeRequest(req).req, rawResponse(res));
    }

    private serve(wire: ChatWireFormat, request: unknown, response: unknown): Promise<WriteOutcome> {
      const { req, platform } = nodeRequest(request);
      return this.endpoints.post(wire, req, rawResponse(response), platform);
    }
  }
  return ChatfluxController;
}
