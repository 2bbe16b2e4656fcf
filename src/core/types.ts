import type { Observable } from 'rxjs';

/**
 * One Server-Sent Event as the WHATWG parser dispatches it (HTML §9.2.6).
 *
 * `event` is absent for the default `message` type; `id` is the last event ID in force when the event was
 * dispatched (absent until the stream sets one).
 */
export interface SseEvent {
  /** The event's data: its `data:` lines joined with LF. */
  data: string;
  /** The `event:` field, absent when the event has the default type `message`. */
  event?: string;
  /** The last event ID (the `id:` field), absent until one was set. */
  id?: string;
}

/**
 * An Observable that emits exactly one value and completes, or errors — WebFlux's `Mono<T>`.
 *
 * ```text
 * Mono<T>:  ------(v|)      or      ------#
 * ```
 *
 * It is a plain RxJS `Observable`: the name documents the contract (one value, then completion; never empty),
 * which chatflux's own Mono-returning functions guarantee (`toOutput()`, `client.json(request)`). Like every
 * Observable it is cold and lazy: nothing happens until it is subscribed, and unsubscribing cancels the work.
 * Await it with `firstValueFrom(mono)`.
 */
export type Mono<T> = Observable<T>;

/**
 * An Observable of zero or more values, then completion or an error — WebFlux's `Flux<T>`.
 *
 * ```text
 * Flux<T>:  --a--b--c--|    or      --a--#
 * ```
 *
 * A plain RxJS `Observable`; the name documents intent (a stream, e.g. `Flux<LlmClientOutputChunk>` for
 * `/chat/stream`). chatflux's Fluxes are cold and demand-driven: unsubscribing aborts the upstream request.
 */
export type Flux<T> = Observable<T>;

/**
 * An SSE frame to write, with its optional fields — WebFlux's `ServerSentEvent<T>`.
 *
 * Build one with {@link serverSentEvent} so that `toSse` can tell it from a plain value (a plain value is always
 * written as `data: <json>`). `data` is JSON-encoded unless it is a string; `retry: 0` and `id: ''` are written as
 * given. Fields are written in the order `comment`, `event`, `id`, `retry`, `data`:
 *
 * ```text
 * serverSentEvent({ data: { n: 1 }, event: 'chunk', id: '7' })   →   event: chunk
 *                                                                    id: 7
 *                                                                    data: {"n":1}
 *                                                                    (blank line)
 * ```
 */
export interface ServerSentEvent<T> {
  /** The payload; a string is written as is (split on line breaks), anything else as JSON. */
  data?: T;
  /** The `event:` field (no CR or LF). */
  event?: string;
  /** The `id:` field (no CR, LF or NUL); `''` resets the client's last event ID. */
  id?: string;
  /** The `retry:` field in milliseconds (a non-negative integer). */
  retry?: number;
  /** A comment line (`: comment`), written before the fields. */
  comment?: string;
}
