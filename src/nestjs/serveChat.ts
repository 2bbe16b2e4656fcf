import type { IncomingHttpHeaders } from 'node:http';
import bytes from 'bytes';
import { defer, switchMap, type Observable } from 'rxjs';
import type { ChatClient } from '../client/createChatClient.js';
import { RequestError, ShutdownError } from '../core/errors.js';
import { parseChatRequest } from '../core/parseChatRequest.js';
import { toRequestError } from '../node/toRequestError.js';
import { matchesBearerKey } from '../node/matchesBearerKey.js';
import type { WriteOutcome } from '../node/index.js';
import { createDemandGate } from '../core/createDemandGate.js';
import type { ChatfluxModuleConfig } from './ChatfluxModuleConfig.js';
import type { ChatfluxShutdown } from './ChatfluxShutdown.js';
import type { ChatWireFormat } from './ChatWireFormat.js';
import { rawResponse } from './rawResponse.js';
import { readJsonBody } from './readJsonBody.js';
import { writeChatWire } from './writeChatWire.js';

/** What the built-in controller's handlers receive as `@Req()` (an Express request, or a Fastify request). */
export interface ChatHttpRequest {
  headers: IncomingHttpHeaders;
  body?: unknown;
  raw?: unknown;
}

/** What the built-in controller serves from. */
export interface ChatRouteContext {
  client: ChatClient;
  config: ChatfluxModuleConfig;
  shutdown: ChatfluxShutdown;
}

/** `req.is('application/json')` of Express (type-is): a body must be present and its media type exactly JSON. */
const isJsonBody = (headers: IncomingHttpHeaders): boolean => {
  const length = headers['content-length'];
  const hasBody = headers['transfer-encoding'] !== undefined || (length !== undefined && !Number.isNaN(Number(length)));
  const type = headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  return hasBody && type === 'application/json';
};

/**
 * The limit to name in a 413: ours — unless a parser with a smaller limit (Nest's default 100 kb) refused a body that
 * ours would have taken; then its limit, which is the one the body broke.
 */
const limitRefusing = (error: unknown, ours: number | string, headers: IncomingHttpHeaders): number | string => {
  const theirs = (error as { limit?: unknown } | null)?.limit;
  const max = bytes.parse(ours);
  const length = Number(headers['content-length']);
  return typeof theirs === 'number' && max !== null && theirs < max && !(length > max) ? theirs : ours;
};

/**
 * Serves one request of the built-in controller in the order of the Express router: key (401), content type (415),
 * body (413, 400), schema (400), then the client's result for `format` — all written by the node writers with the
 * router's options, so every refusal has the router's status, message and error format.
 *
 * 1. `bodyError` is the platform's body-parser failure, when Nest's default parser refused the body before the route
 *    ran (see `answerBodyParserErrors`): it is answered after the key and content-type checks, as the router would.
 * 2. During a shutdown, a new request is refused with 503 `shutting_down` (and `Connection: close`); a response in
 *    flight ends when the shutdown's signal aborts.
 */
export function serveChat(
  format: ChatWireFormat,
  { client, config, shutdown }: ChatRouteContext,
  request: ChatHttpRequest,
  response: unknown,
  bodyError?: unknown,
): Promise<WriteOutcome> {
  const res = rawResponse(response);
  const keys = (config.apiKeys ?? []).filter((key) => key !== '');
  const bodyLimit = config.bodyLimit ?? '1mb';
  const demand = createDemandGate();
  const draining = shutdown.isDraining;
  if (draining) res.setHeader('Connection', 'close');
  const read = async (): Promise<unknown> => {
    if (draining) throw new ShutdownError();
    const authorization = request.headers.authorization;
    if (keys.length > 0 && !matchesBearerKey(authorization, keys)) {
      throw new RequestError('unauthorized', 'missing or invalid API key (send it in the Authorization header, scheme Bearer)');
    }
    if (!isJsonBody(request.headers)) {
      throw new RequestError('unsupported_media_type', 'the request body must be JSON (Content-Type: application/json)');
    }
    try {
      if (bodyError !== undefined) throw bodyError;
      return await readJsonBody(request, res, bodyLimit);
    } catch (error) {
      throw toRequestError(error, limitRefusing(error, bodyLimit, request.headers)) ?? error;
    }
  };
  const output: Observable<unknown> = defer(read).pipe(
    switchMap((body) => {
      const chat = parseChatRequest(body, config.model, config.requestPolicy);
      if (format === 'json') return client.json(chat, { demand });
      return format === 'ndjson' ? client.stream(chat, { demand }) : client.sse(chat, { demand });
    }),
  );
  return shutdown.track(
    writeChatWire(format, res, output, {
      demand,
      secrets: [...keys, ...(config.secrets ?? [])],
      signal: shutdown.signal,
      ...(config.heartbeatMs === undefined ? {} : { heartbeatMs: config.heartbeatMs }),
    }),
  );
}
