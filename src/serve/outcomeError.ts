import { StreamLogError } from '../core/errors.js';
import { PUBLIC_ERROR_RESPONSE } from '../core/publicErrorResponse.js';
import type { ErrorBody } from '../core/schemas/index.js';
import type { StreamOutcome } from '../store/StreamOutcome.js';

/**
 * The error a resumable answer's readers get for how it ended other than complete — the original client and every
 * resumed reader alike, so that their in-band error frames are the same bytes: `cancelled`, `abandoned` and
 * `producer_lost` as a `StreamLogError`; a logged error body as an error that `toErrorResponse` words exactly so.
 *
 * @param outcome - The stream's terminal entry (not `complete`).
 * @param id - The stream's id.
 * @returns The error to end the readers with.
 */
export function outcomeError(outcome: Exclude<StreamOutcome, { kind: 'complete' }>, id: string): Error {
  switch (outcome.kind) {
    case 'cancelled':
      return new StreamLogError('cancelled', id, 'the answer was cancelled (POST /chat/streams/{id}/cancel)');
    case 'abandoned':
      return new StreamLogError('abandoned', id, 'the answer was abandoned: no reader was attached for the abandon time');
    case 'producer_lost':
      return new StreamLogError('producer_lost', id, 'the instance producing the answer stopped before its end; ask again');
    default:
      return loggedError(outcome.status, outcome.error);
  }
}

/** An error whose public response (`toErrorResponse`) is `status` and `body`, as the original client was sent it. */
function loggedError(status: number, body: ErrorBody): Error {
  const error = new Error(body.message) as Error & { [PUBLIC_ERROR_RESPONSE]: { status: number; type: string; code: string } };
  error[PUBLIC_ERROR_RESPONSE] = { status, type: body.type, code: body.code };
  return error;
}
