import type { ErrorBody } from '../core/schemas/index.js';

/**
 * How a logged stream ended: its terminal entry. Every stream ends with exactly one.
 *
 * ```text
 * complete        the answer finished (its last value was appended before)
 * error           the answer failed; `error` is the serialized body the client was sent ({message, type, code}),
 *                 `status` the HTTP status it would have had (`toErrorResponse`'s), so a replay writes the same frame
 * cancelled       someone called `StreamLog.cancel(id)` (any instance) and the producer stopped
 * abandoned       no reader was attached for `abandonAfterMs`, so the producer stopped
 * producer_lost   the producer stopped showing life (its process died: its lease expired) — written by a reader
 * ```
 */
export type StreamOutcome =
  | {
      /** The answer finished. */
      readonly kind: 'complete';
    }
  | {
      /** The answer failed. */
      readonly kind: 'error';
      /** The HTTP status the error would have had before the response started. */
      readonly status: number;
      /** The public error body the client was sent. */
      readonly error: ErrorBody;
    }
  | {
      /** Cancelled by `StreamLog.cancel`. */
      readonly kind: 'cancelled';
    }
  | {
      /** No reader was attached for `abandonAfterMs`. */
      readonly kind: 'abandoned';
    }
  | {
      /** The producer stopped showing life before ending the stream. */
      readonly kind: 'producer_lost';
    };

/** The `kind` of a {@link StreamOutcome}. */
export type StreamOutcomeKind = StreamOutcome['kind'];
