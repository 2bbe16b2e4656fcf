import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter, type HttpServer } from '@nestjs/common';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { throwError } from 'rxjs';
import { isChatfluxError, RequestError } from '../core/errors.js';
import { PUBLIC_ERROR_RESPONSE, type PublicErrorResponse } from '../core/publicErrorResponse.js';
import { CHAT_WIRES, type ChatWireFormat } from '../node/CHAT_WIRES.js';
import { toRequestError } from '../serve/toRequestError.js';
import { CHAT_ROUTE } from './chatflux.constants.js';
import type { ChatRoute, ChatWireConfig } from './chatflux.interfaces.js';
import { rawResponse } from './chatflux.utilities.js';

const BY_STATUS = new Map<number, 'invalid_request' | 'unauthorized' | 'payload_too_large' | 'unsupported_media_type'>([
  [400, 'invalid_request'],
  [401, 'unauthorized'],
  [413, 'payload_too_large'],
  [415, 'unsupported_media_type'],
]);

/** The wire `code` of a status: `rate_limited` for 429, else its reason phrase in snake case (`forbidden`, `not_found`). */
const codeOf = (status: number): string =>
  status === 429
    ? 'rate_limited'
    : (STATUS_CODES[status] ?? `http_${status}`)
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_|_$/g, '');

/** What a client is told: the exception's message, or the messages of its response body (a `ValidationPipe`'s list). */
const messageOf = (exception: HttpException): string => {
  const response = exception.getResponse() as { message?: unknown } | string;
  const message = typeof response === 'object' && response !== null ? response.message : undefined;
  if (Array.isArray(message) && message.every((item) => typeof item === 'string')) return message.join('; ');
  return exception.message;
};

/**
 * What Nest or a body parser threw, as an error that `toErrorResponse` gives the contract's status and body:
 *
 * 1. chatflux errors pass unchanged;
 * 2. JSON parser failures (`entity.parse.failed`, `entity.too.large`, charset/encoding) are worded as the Express
 *    router words them (400, 413, 415);
 * 3. Nest's `HttpException`s with 400, 401, 413 or 415 become the matching {@link RequestError}s; any other 4xx, and
 *    503, keep their status with `type` `invalid_request_error` (`rate_limit_error` for 429, `server_error` for 503)
 *    and a `code` from the status (`forbidden`, `not_found`, `rate_limited`, `service_unavailable`);
 * 4. anything else passes unchanged, and becomes a 500 that discloses nothing.
 *
 * @param error What was thrown.
 * @returns The error to write.
 */
export function toChatfluxError(error: unknown): unknown {
  if (isChatfluxError(error)) return error;
  const limit = (error as { limit?: unknown } | null)?.limit;
  const parsed = toRequestError(error, typeof limit === 'number' ? limit : '1mb');
  if (parsed !== undefined) return parsed;
  if (!(error instanceof HttpException)) return error;
  const status = error.getStatus();
  const code = BY_STATUS.get(status);
  if (code !== undefined) return new RequestError(code, messageOf(error), { cause: error });
  if ((status < 400 || status > 499) && status !== 503) return error;
  const response: PublicErrorResponse = {
    status,
    type: status === 429 ? 'rate_limit_error' : status === 503 ? 'server_error' : 'invalid_request_error',
    code: codeOf(status),
  };
  return Object.assign(new Error(messageOf(error), { cause: error }), { [PUBLIC_ERROR_RESPONSE]: response });
}

/**
 * Writes `error` (mapped by {@link toChatfluxError}) before anything else was sent, in the wire's error format, with
 * the wire's writer (`CHAT_WIRES`): a real status, the endpoint's error body.
 *
 * @param wire Which endpoint format to answer in.
 * @param res The node response.
 * @param error What was thrown.
 * @param config Secrets to redact from the message.
 */
export function writeChatError(wire: ChatWireFormat, res: ServerResponse, error: unknown, config: Pick<ChatWireConfig, 'secrets'> = {}): void {
  void CHAT_WIRES[wire].send(res, throwError(() => toChatfluxError(error)), { ...config, heartbeatMs: 0 });
}

/**
 * An exception filter answering in the contract's error format of one endpoint — for what a guard, a pipe outside
 * the chat decorators, or a handler threw. Statuses and bodies are `toErrorResponse`'s, written by the node
 * writers: chatflux errors keep their status (400, 401, 413, 429, 502, 504, …); JSON parser failures and Nest's
 * `HttpException`s with 400, 401, 413 or 415 become the matching request errors; any other 4xx `HttpException`
 * (a guard's 403, a throttler's 429, a 404) and a 503 keep their status, with `type` `invalid_request_error`
 * (`rate_limit_error` for 429, `server_error` for 503) and a `code` from the status (`forbidden`, `rate_limited`,
 * `not_found`); anything else is a 500 whose message is not disclosed.
 *
 * `@ChatJson()`, `@ChatNdjson()` and `@ChatSse()` apply it; use it alone on a handler of your own.
 *
 * ## Example
 * ```ts
 * @Post('ask') @UseGuards(ApiKeyGuard) @UseFilters(new ChatfluxExceptionFilter('sse'))
 * ```
 */
@Catch()
export class ChatfluxExceptionFilter implements ExceptionFilter {
  /**
   * @param format The wire whose error format to write.
   * @param config Secrets to redact from messages.
   */
  constructor(
    private readonly format: ChatWireFormat,
    private readonly config: Pick<ChatWireConfig, 'secrets'> = {},
  ) {}

  /** Writes `exception` in the format (headers not sent yet), or ends the response (already committed). */
  catch(exception: unknown, host: ArgumentsHost): void {
    const res = rawResponse(host.switchToHttp().getResponse());
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    writeChatError(this.format, res, exception, this.config);
  }
}

/** The parts of Express 5 (and its `router`) read by {@link answerBodyParserErrors}. */
interface ExpressLayer {
  match(path: string): boolean;
  route?: { methods?: Record<string, boolean>; stack?: Array<{ handle?: unknown }> };
}
type ExpressRequest = IncomingMessage & { path?: string };
type ExpressApp = { router?: { stack?: ExpressLayer[] } };

/** Express apps that already have the error middleware (one per app, however many modules ask). */
const installed = new WeakSet<object>();

/** The chatflux route (module route or decorated handler) that `req` was on its way to, if any. */
const chatRouteOf = (app: ExpressApp, req: ExpressRequest): ChatRoute | undefined => {
  if (req.method !== 'POST' || req.path === undefined) return undefined;
  for (const layer of app.router?.stack ?? []) {
    if (layer.route?.methods?.['post'] !== true) continue;
    for (const { handle } of layer.route.stack ?? []) {
      const route = typeof handle === 'function' ? (Reflect.getMetadata(CHAT_ROUTE, handle) as ChatRoute | undefined) : undefined;
      if (route !== undefined && layer.match(req.path)) return route;
    }
  }
  return undefined;
};

/**
 * With Nest's default body parser (`NestFactory.create(App)` without `bodyParser: false`), Express parses every body
 * before any route runs, and passes a failure (malformed JSON, a body over Nest's 100 kb, an unsupported charset) to
 * Nest's global error handler, which answers in Nest's own format. This installs, on the Express platform, an error
 * middleware ahead of that handler: a JSON parser's error on a chatflux route (the module's, or a decorated handler) is
 * answered by the route itself — the module's routes check the key (401) and the content type (415) first, as the
 * router does — with the router's status, message and error format. Other errors and other routes go on to Nest.
 *
 * Must run after Nest registered the routes and before it registers its error handler: `onModuleInit` is that point.
 *
 * @param adapter The application's HTTP adapter (`HttpAdapterHost.httpAdapter`); nothing happens on other platforms.
 */
export function answerBodyParserErrors(adapter: HttpServer | undefined): void {
  if (adapter?.getType() !== 'express') return;
  const app = adapter.getInstance() as ExpressApp;
  if (installed.has(app)) return;
  installed.add(app);
  // Four parameters: Express calls it with the error of the layers before it (the body parsers among them).
  adapter.use((error: unknown, req: ExpressRequest, res: ServerResponse, next?: unknown): void => {
    const route = res.headersSent || toRequestError(error, 0) === undefined ? undefined : chatRouteOf(app, req);
    if (route === undefined) return (next as (error: unknown) => void)(error);
    route.answerBodyError(req, res, error);
  });
}
