import { serverSentEvent } from '../core/serverSentEvent.js';
import { formatSseEvent } from '../wire/formatSseEvent.js';
import { WireText } from '../wire/WireText.js';
import { streamEventId } from './streamEventId.js';

/**
 * One value of a resumable answer as its SSE wires write it, live and resumed alike: the value's JSON as the
 * `data:` line (the bytes `SSE_WIRE` writes for it), its `id:` naming the stream and the position, and `event:`
 * when the value was one (a restart: `event: restart`) — the bytes `formatSseEvent` writes for that event, made
 * here once from the logged JSON text (the writer writes them as they are: `WireText`).
 *
 * ```text
 * id: <stream id>:<position>
 * data: {"message":…,"done":false,"index":3}
 * ```
 *
 * @param json - The value's JSON text, as logged.
 * @param id - The stream's id (`createStreamId`: `[A-Za-z0-9_-]`, nothing to escape).
 * @param position - The value's position.
 * @param event - The frame's `event:`, if any (`restart`).
 * @param stringified - The text is `stringifyValue`'s, as it was just made (the live answer): JSON.stringify's bytes
 *   never hold a raw line break, so it is not scanned for one (a text read back from a log is).
 * @returns The frame for the SSE writer.
 */
export function loggedFrame(json: string, id: string, position: number, event?: string, stringified = false): WireText {
  const eventId = streamEventId.of(id, position);
  // JSON text has no raw line break, so the string is one `data:` line of exactly that text. A logged text with one
  // (not JSON.stringify's) is framed as any string data is: one `data:` line per line.
  if (!stringified && (json.indexOf('\n') !== -1 || json.indexOf('\r') !== -1)) {
    return new WireText(formatSseEvent(serverSentEvent({ event, id: eventId, data: json })));
  }
  return new WireText(event === undefined ? `id: ${eventId}\ndata: ${json}\n\n` : `event: ${event}\nid: ${eventId}\ndata: ${json}\n\n`);
}
