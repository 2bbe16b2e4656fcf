import type { DemandGate } from '../core/createDemandGate.js';
import type { WriteOutcome } from '../serve/WriteOutcome.js';

/** Options of {@link toResponse}: those of the node writers (`WriteResponseConfig`), plus `onEnd`. */
export interface ToResponseConfig {
  /**
   * The demand gate shared with the upstream source: closed while the body's queue is full (the client is not
   * pulling), opened again on the client's next pull or on cancel. Pass the same gate to the chat client.
   */
  demand?: DemandGate;
  /** Ends the response early: before the commit with the error status of `signal.reason`, after it in-band (a `ShutdownError` by default). */
  signal?: AbortSignal;
  /**
   * The request's own signal (`request.signal`), aborted when the client goes away: the source is unsubscribed (the
   * upstream aborted) even before the body exists — while a `json` answer is still being gathered, or before the first
   * value. The promise then resolves with an empty 499 that nobody reads.
   */
  requestSignal?: AbortSignal;
  /** Literal secrets (API keys, gateway keys) to redact from error messages. */
  secrets?: readonly string[];
  /** Silence (ms) after which the heartbeat (`: ping` for SSE) is written; `0` disables. Default 15000. */
  heartbeatMs?: number;
  /**
   * No heartbeat before this settles: pass the promise of the request being read and checked when the source reads
   * it, so that its refusal (400, 408, 413) keeps its status — a heartbeat commits the 200. Default: from the start.
   */
  heartbeatAfter?: PromiseLike<unknown>;
  /** Called once with each value before it is written (logging, metrics). */
  onValue?: (value: unknown) => void;
  /** Called once when the response has ended: its body finished, failed, or the client cancelled it. */
  onEnd?: (outcome: WriteOutcome) => void;
}
