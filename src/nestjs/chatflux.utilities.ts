import type { IncomingMessage, ServerResponse } from 'node:http';
import { createDemandGate, type DemandGate } from '../core/createDemandGate.js';
import type { PlatformBody } from '../node/readJsonBody.js';

/**
 * The node `ServerResponse` under a platform's response object — the Express response itself, or a Fastify
 * reply's `raw` — taken over by the caller: a Fastify reply is hijacked, so that Fastify neither sends a reply of
 * its own nor complains that the handler returned nothing.
 *
 * @param response What `@Res()` or `switchToHttp().getResponse()` gave.
 * @returns The node response to write to.
 */
export function rawResponse(response: unknown): ServerResponse {
  const reply = response as { raw?: ServerResponse; hijack?: () => void; sent?: boolean };
  if (reply.raw !== undefined && typeof reply.hijack === 'function') {
    reply.hijack();
    return reply.raw;
  }
  return response as ServerResponse;
}

/**
 * The node `IncomingMessage` under a platform's request — the Express request itself, or a Fastify request's `raw` —
 * and, on Fastify, the body Fastify's parser already read (the stream is spent; the body is on the Fastify request).
 *
 * @param request What `@Req()` or `switchToHttp().getRequest()` gave.
 * @returns The node request, and the platform's body when there is one.
 */
export function nodeRequest(request: unknown): { req: IncomingMessage; platform?: PlatformBody } {
  const { raw, body } = request as { raw?: IncomingMessage; body?: unknown };
  return raw === undefined ? { req: request as IncomingMessage } : { req: raw, platform: { value: body } };
}

const GATE = Symbol.for('chatflux:demand-gate');

/**
 * The request's {@link DemandGate}, created on first use and kept on the (raw) request, so that `@Demand()` and
 * the wire interceptor of `@ChatSse()` & co. share one gate per request.
 *
 * @param request The platform's request (Express request, or a Fastify request with its `raw`).
 * @returns The gate of this request.
 */
export function requestDemandGate(request: unknown): DemandGate {
  const carrier = ((request as { raw?: object }).raw ?? request) as { [GATE]?: DemandGate };
  carrier[GATE] ??= createDemandGate();
  return carrier[GATE];
}
