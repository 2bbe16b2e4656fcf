import type { DemandGate } from '../core/createDemandGate.js';
import type { ResponseWriterConfig } from '../serve/createResponseWriter.js';
import type { WriteOutcome } from '../serve/WriteOutcome.js';

/**
 * Options of {@link toResponse}: the writer's own (`ResponseWriterConfig`, as the node writers' `WriteResponseConfig`),
 * the demand gate, the request's signal and `onEnd`.
 */
export interface ToResponseConfig extends Omit<ResponseWriterConfig, 'name' | 'onSettle'> {
  /**
   * The demand gate shared with the upstream source: closed while the body's queue is full (the client is not
   * pulling), opened again on the client's next pull or on cancel. Pass the same gate to the chat client.
   */
  demand?: DemandGate;
  /**
   * The request's own signal (`request.signal`), aborted when the client goes away: the source is unsubscribed (the
   * upstream aborted) even before the body exists — while a `json` answer is still being gathered, or before the first
   * value. The promise then resolves with an empty 499 that nobody reads.
   */
  requestSignal?: AbortSignal;
  /** Called once when the response has ended: its body finished, failed, or the client cancelled it. */
  onEnd?: (outcome: WriteOutcome) => void;
}
