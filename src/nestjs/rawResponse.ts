import type { ServerResponse } from 'node:http';

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
