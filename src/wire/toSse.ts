import type { OperatorFunction, SchedulerLike } from 'rxjs';
import type { ServerSentEvent } from '../core/types.js';
import { encodeWire } from './encodeWire.js';
import { SSE_WIRE } from './SSE_WIRE.js';

/** Options of {@link toSse}. */
export interface ToSseConfig {
  /** Write a comment frame `: ping` after this many milliseconds of silence (default: no heartbeat). */
  heartbeatMs?: number;
  /** Where the heartbeat timer runs (default `asyncScheduler`; a `TestScheduler` in marble tests). */
  scheduler?: SchedulerLike;
  /** Literal secrets (API keys) to remove from the error frame's message, whatever their shape. */
  secrets?: readonly string[];
  /** Called with the original error before it becomes the error frame (to log it: the frame says little). */
  onError?: (error: unknown) => void;
}

/**
 * Encodes values as Server-Sent Events text — the `/chat/sse` wire: `data: <json>\n\n` per value, then
 * `data: [DONE]\n\n`. The text is `SSE_WIRE`'s, the formatter `sendSse` writes with: what this operator emits is
 * byte for byte what the `/chat/sse` endpoint sends.
 *
 * ```text
 * source:                      --a--b--|
 * toSse():                     --A--B--(D|)        A: 'data: {…a…}\n\n'   D: 'data: [DONE]\n\n'
 *
 * source:                      --a--#
 * toSse():                     --A--(E|)           E: 'event: error\ndata: {"message",…}\n\n' + 'data: [DONE]\n\n'
 *
 * source:                      -----------a--|
 * toSse({ heartbeatMs: 4 }):   ----p---p--A--(D|)  p: ': ping\n\n'
 * ```
 *
 * 1. A plain value (a string too) is written as one `data:` line of JSON. A {@link ServerSentEvent} built with
 *    `serverSentEvent()` is written with its own fields (`comment`, `event`, `id`, `retry`, then `data`; a string
 *    `data` as text lines, split on CR, LF and CRLF).
 * 2. Completion writes `data: [DONE]\n\n` and completes.
 * 3. An error (from the source, or a frame that cannot be written: `event`/`id` with a line break, a value without a
 *    JSON form) writes `event: error` with `{"message","type","code"}` (see `toErrorResponse`: secrets redacted, no
 *    stack), then `data: [DONE]\n\n`, and completes. `config.onError` sees the original error first.
 * 4. With `heartbeatMs`, a comment frame `: ping\n\n` is written after each `heartbeatMs` of silence (including
 *    before the first frame). Every emission is a whole frame, so a heartbeat never lands inside one.
 *
 * ## Example
 * ```ts
 * client.chunks(request).pipe(toOutputChunks(), toSse({ heartbeatMs: 15_000 })).subscribe((text) => res.write(text));
 * ```
 *
 * @param config - Heartbeat interval and scheduler, secrets to redact, an error hook.
 * @returns An operator from values (or ServerSentEvents) to SSE text that never errors.
 * @throws ConfigError when `heartbeatMs` is given and is not a positive number.
 */
export function toSse<T>(config: ToSseConfig = {}): OperatorFunction<T | ServerSentEvent<T>, string> {
  return encodeWire<T | ServerSentEvent<T>>(SSE_WIRE, config);
}
