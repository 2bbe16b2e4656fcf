import { createDemandGate, type DemandGate } from '../core/createDemandGate.js';

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
