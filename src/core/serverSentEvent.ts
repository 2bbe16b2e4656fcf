import { SERVER_SENT_EVENT_BRAND } from './serverSentEventBrand.js';
import type { ServerSentEvent } from './types.js';

/**
 * Builds a {@link ServerSentEvent} that `toSse` writes with its own fields (WebFlux's
 * `ServerSentEvent.builder(data).event(…).id(…).build()`), instead of as a plain `data: <json>` frame.
 *
 * The result is a copy of `init` carrying a brand (a registered symbol), so `toSse` can tell it from a plain value
 * that happens to have a `data` field. The fields are checked when the frame is written: `event` and `id` must not
 * contain CR or LF (nor `id` NUL), `retry` must be a non-negative integer.
 *
 * ## Example
 * ```ts
 * chunks$.pipe(
 *   map((chunk) => serverSentEvent({ data: chunk, id: String(chunk.index) })),
 *   toSse(),
 * );
 * // id: 0
 * // data: {"message":{"role":"assistant","content":"Hi"},"done":false,"index":0}
 * ```
 *
 * @param init - The frame's fields: `data` (a string is written as text lines, anything else as JSON), `event`, `id`,
 *   `retry`, `comment`.
 * @returns A branded copy of `init`.
 */
export function serverSentEvent<T>(init: ServerSentEvent<T>): ServerSentEvent<T> {
  // A literal of fixed shape, not a spread: V8 gives spread copies a shape that makes every later read of the event
  // (the SSE writer's, once per frame) several times slower. Absent fields stay `undefined`, which the writer skips.
  return {
    data: init.data,
    event: init.event,
    id: init.id,
    retry: init.retry,
    comment: init.comment,
    [SERVER_SENT_EVENT_BRAND]: true,
  } as ServerSentEvent<T>;
}
