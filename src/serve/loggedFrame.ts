import { serverSentEvent } from '../core/serverSentEvent.js';
import type { ServerSentEvent } from '../core/types.js';
import { streamEventId } from './streamEventId.js';

/**
 * One value of a resumable answer as its SSE wires write it, live and resumed alike: the value's JSON as the
 * `data:` line (the bytes `SSE_WIRE` writes for it), its `id:` naming the stream and the position, and `event:`
 * when the value was one (a restart: `event: restart`).
 *
 * ```text
 * id: <stream id>:<position>
 * data: {"message":…,"done":false,"index":3}
 * ```
 *
 * @param json - The value's JSON text, as logged.
 * @param id - The stream's id.
 * @param position - The value's position.
 * @param event - The frame's `event:`, if any.
 * @returns The frame for the SSE writer.
 */
export function loggedFrame(json: string, id: string, position: number, event?: string): ServerSentEvent<string> {
  // JSON text has no raw line break, so the string `data` is one `data:` line of exactly that text.
  return serverSentEvent({ event, id: streamEventId.of(id, position), data: json });
}
