import { EVENT_SOURCE_IDS } from '../wire/EVENT_SOURCE_IDS.js';
import type { WriteOutcome } from './WriteOutcome.js';

/**
 * Whether a `GET /chat/sse` is an `EventSource` reconnecting to a finished answer — its `Last-Event-ID` names the
 * final frame (`EVENT_SOURCE_IDS`) — and if so the outcome to answer and log: 204, nothing else (no key check, no
 * upstream call), which stops the `EventSource`. Shared by the node serving core and the web handlers.
 *
 * @param lastEventId - The request's `Last-Event-ID` header (node's value, or a web `Headers.get`).
 * @returns The 204's outcome, or `undefined` for any other request (served as usual).
 */
export function finishedReconnect(lastEventId: string | readonly string[] | null | undefined): WriteOutcome | undefined {
  if (typeof lastEventId !== 'string' || !EVENT_SOURCE_IDS.isFinished(lastEventId)) return undefined;
  return { result: 'completed', status: 204, committed: false, values: 0, bytes: 0 };
}
