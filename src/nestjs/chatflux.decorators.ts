import {
  applyDecorators,
  createParamDecorator,
  HttpCode,
  Inject,
  Injectable,
  Optional,
  Res,
  SetMetadata,
  UseFilters,
  UseInterceptors,
  type ExecutionContext,
} from '@nestjs/common';
import type { ChatWireFormat } from '../node/CHAT_WIRES.js';
import { CHAT_ROUTE } from './chatflux.constants.js';
import { ChatfluxExceptionFilter, writeChatError } from './chatflux.filter.js';
import { ChatWireInterceptor } from './chatflux.interceptor.js';
import type { ChatRoute, ChatWireConfig } from './chatflux.interfaces.js';
import { ChatfluxShutdown } from './chatflux.shutdown.js';
import { requestDemandGate } from './chatflux.utilities.js';

// Nest's metadata keys (`@nestjs/common/constants`), spelled out: a deep import does not resolve from ESM.
const ROUTE_ARGS_METADATA = '__routeArguments__';
const RESPONSE_PASSTHROUGH_METADATA = '__responsePassthrough__';

/**
 * Marks the response of a handler as written by chatflux, as `@Res()` without passthrough does: Nest then sends
 * nothing itself after the handler. It appends a `@Res()` parameter after the declared ones (the handler receives
 * one argument more, which it ignores). Parameter decorators run before method decorators, so the declared
 * parameters are known here.
 */
const responseHandledByChatflux =
  (): MethodDecorator =>
  (target: object, key: string | symbol, descriptor: PropertyDescriptor): void => {
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, target.constructor, key) ?? {}) as Record<string, { index: number }>;
    const declared = typeof descriptor.value === 'function' ? (descriptor.value as (...a: unknown[]) => unknown).length : 0;
    const index = Math.max(declared, ...Object.values(args).map((arg) => arg.index + 1));
    Res()(target, key, index);
    Reflect.defineMetadata(RESPONSE_PASSTHROUGH_METADATA, false, target.constructor, key);
  };

/** The decorators behind `@ChatJson()`, `@ChatNdjson()`, `@ChatSse()`. */
function chatWireDecorator(format: ChatWireFormat, config: ChatWireConfig = {}): MethodDecorator {
  const secrets = config.secrets === undefined ? {} : { secrets: config.secrets };
  /** This handler's interceptor, built by Nest so that it gets the module's shutdown when `ChatfluxModule` is imported. */
  @Injectable()
  class ChatWireInterceptorOfHandler extends ChatWireInterceptor {
    constructor(@Optional() @Inject(ChatfluxShutdown) shutdown?: ChatfluxShutdown) {
      super(format, config, shutdown);
    }
  }
  const route: ChatRoute = { answerBodyError: (_request, response, error) => writeChatError(format, response, error, secrets) };
  return applyDecorators(
    HttpCode(200),
    UseInterceptors(ChatWireInterceptorOfHandler),
    UseFilters(new ChatfluxExceptionFilter(format, secrets)),
    SetMetadata(CHAT_ROUTE, route),
    responseHandledByChatflux(),
  );
}

/**
 * Serves the handler's `Mono<LlmClientOutput>` (or promise, or value) as `/chat/json` does: one JSON object with
 * status 200, or the `{"error":{message,type,code}}` body with a real status (a zod pipe's 400, the upstream's
 * 429/502/504, …). Bytes and headers are those of the Express router (same node writer).
 *
 * ## Example
 * ```ts
 * @Post('answer') @ChatJson()
 * answer(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
 *   return this.client.json(request, { demand });
 * }
 * ```
 *
 * @param config Options of the writer (heartbeat interval for SSE, secrets to redact, shutdown signal).
 * @returns A method decorator (use it with `@Post()`).
 */
export function ChatJson(config?: ChatWireConfig): MethodDecorator {
  return chatWireDecorator('json', config);
}

/**
 * Serves the handler's `Flux<LlmClientOutputChunk>` as `/chat/stream` does: one JSON object per line, headers
 * committed with the first line; an error before it is a real status and the error line
 * `{"error":{…},"done":true}`, after it the same line in band. Backpressure through the request's demand gate
 * (`@Demand()`), disconnect unsubscribes the handler's Observable.
 *
 * ## Example
 * ```ts
 * @Post('lines') @ChatNdjson()
 * lines(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
 *   return this.client.stream(request, { demand }).pipe(filter((chunk) => chunk.message.content !== ''));
 * }
 * ```
 *
 * @param config Options of the writer (heartbeat interval for SSE, secrets to redact, shutdown signal).
 * @returns A method decorator (use it with `@Post()`).
 */
export function ChatNdjson(config?: ChatWireConfig): MethodDecorator {
  return chatWireDecorator('ndjson', config);
}

/**
 * Serves the handler's `Flux` of chunks (or of `ServerSentEvent`s) as `/chat/sse` does, on POST — unlike Nest's
 * `@Sse()`: headers committed lazily (an early error keeps its real status), `data: [DONE]` at the end,
 * `event: error` + `[DONE]` for an error, `: ping` heartbeats during silences, writes paced by the client through
 * the request's demand gate (`@Demand()`), and disconnect detected on the response, not on the request.
 *
 * ## Example
 * ```ts
 * @Post('ask') @ChatSse()
 * ask(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
 *   return this.client.sse(request, { demand });
 * }
 * ```
 *
 * @param config Options of the writer (heartbeat interval for SSE, secrets to redact, shutdown signal).
 * @returns A method decorator (use it with `@Post()`).
 */
export function ChatSse(config?: ChatWireConfig): MethodDecorator {
  return chatWireDecorator('sse', config);
}

/**
 * Injects the request's {@link chatflux!DemandGate} (`import type { DemandGate } from 'chatflux'`): pass it to the
 * client (`client.sse(request, { demand })`, or `requestCompletion(…, { demand })` in a pipeline of your own) and the
 * writer of `@ChatJson()`, `@ChatNdjson()` or `@ChatSse()` pauses the upstream read while the client is slow. Without
 * it the writer still works, but a fast upstream fills the socket buffer of a slow client.
 *
 * ## Example
 * ```ts
 * @Post('ask') @ChatSse()
 * ask(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
 *   return this.client.sse(request, { demand });
 * }
 * ```
 */
export const Demand = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  requestDemandGate(context.switchToHttp().getRequest()),
);
