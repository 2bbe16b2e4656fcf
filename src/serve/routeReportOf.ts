import type { RouteAttempt } from '../core/schemas/index.js';

/** What a route's last value says of the call: the target that finished the answer, and every attempt. */
export interface RouteReport {
  /** The target that finished the answer. */
  target?: string;
  /** Every attempt, in order. */
  attempts?: RouteAttempt[];
}

/**
 * The route report a written value carries (a route's last chunk, `/chat/json` answer, or `/v1` finishing chunk or
 * completion; the `data` of an SSE event; the `messageMetadata` of a `/chat/ui` `finish` part), if any: what the request log adds of a route's call.
 *
 * @param value - A value the writer wrote.
 * @returns Its `target` and `attempts`, or `undefined` when it has neither.
 */
export function routeReportOf(value: unknown): RouteReport | undefined {
  const record = value as (RouteReport & { data?: RouteReport; messageMetadata?: RouteReport }) | null;
  const nested = record?.data ?? record?.messageMetadata;
  const found = record?.attempts !== undefined ? record : nested?.attempts !== undefined ? nested : undefined;
  if (found === undefined) return undefined;
  return { ...(found.target === undefined ? {} : { target: found.target }), attempts: found.attempts! };
}
