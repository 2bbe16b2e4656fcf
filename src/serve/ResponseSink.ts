/**
 * Where {@link createResponseWriter} puts a response: the platform part of the HTTP writers. `writeResponse` has
 * one over a `node:http` `ServerResponse`, `toResponse` one over a web `ReadableStream`. A sink moves bytes and
 * applies backpressure (it closes the demand gate itself); the state machine (commit, errors, heartbeat, settle)
 * is the writer's.
 */
export interface ResponseSink {
  /** Commits the 200 with these headers, for a streaming body. */
  commit(headers: Readonly<Record<string, string>>): void;
  /** Writes text of the committed body (closing the demand gate when the sink is full). */
  write(text: string): void;
  /** Writes the last text of the committed body (`''` for none) and ends it. */
  end(text: string): void;
  /** Sends a whole response at once, with `Content-Length`: an error before the commit, or a `json` answer. */
  respond(status: number, headers: Readonly<Record<string, string>>, text: string): void;
  /** Drops what is still queued, removes the sink's listeners and opens the demand gate: the response has settled. */
  release(): void;
  /** Whether the sink cannot take more now (the heartbeat is skipped then). */
  isFull(): boolean;
  /** Whether the platform already sent headers (someone else wrote to the response). */
  hasSentHeaders(): boolean;
  // The two counters are data properties the sink keeps current, and the two states above methods, never getters: an
  // object literal with getters gets a hidden class of its own (one per response, ~0.6 KB each).
  /** Body bytes written (or dropped at a disconnect) so far; kept current by the sink. */
  bytes: number;
  /** `performance.now()` of the latest write; kept current by the sink. */
  lastWrite: number;
}
