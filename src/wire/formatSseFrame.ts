import { ConfigError } from '../core/errors.js';
import { formatSseEvent } from './formatSseEvent.js';
import { isServerSentEvent } from '../core/isServerSentEvent.js';

/**
 * The SSE frame of one value of the `/chat/sse` wire: a `serverSentEvent({...})` with its fields (see
 * {@link formatSseEvent}), any other value — a string too, so that `"[DONE]"` cannot end the stream early — as one
 * `data: <json>` line.
 *
 * @param value - A `ServerSentEvent` or a JSON value.
 * @param who - The caller's name, for the misuse error (`toSse`, `sendSse`).
 * @returns The frame's text, ending with `\n\n`.
 * @throws ConfigError for a value without a JSON form (a function, a symbol, `undefined`), or a malformed event.
 */
export function formatSseFrame(value: unknown, who: string): string {
  if (isServerSentEvent(value)) return formatSseEvent(value);
  const json: string | undefined = JSON.stringify(value);
  if (json === undefined)
    throw new ConfigError(
      `${who}: a value needs a JSON form, got ${typeof value}. Emit JSON values or serverSentEvent(...)s.`,
    );
  return `data: ${json}\n\n`;
}
