import { Observable } from 'rxjs';
import type { DemandGate } from '../core/createDemandGate.js';
import type { StreamLog } from '../store/StreamLog.js';
import { loggedFrame } from './loggedFrame.js';
import { outcomeError } from './outcomeError.js';

/** A logged value's `event:` on an SSE wire: `restart` for a restart chunk (as `restartEvent` writes it live). */
const eventOf = (json: string): string | undefined =>
  json.includes('"restart":') && (JSON.parse(json) as { restart?: unknown } | null)?.restart !== undefined ? 'restart' : undefined;

/**
 * A resumed answer: the stream log's values after `after` — caught up, then followed live — as the values its wire
 * writes (SSE: the same frames with their `id:`s as the original, `loggedFrame`; NDJSON: the values), completing or
 * failing as the answer ended (`outcomeError`), so the writer puts the same trailer or error frame after them.
 * Unsubscribing stops the read (the reader detaches; the answer goes on).
 *
 * @param log - The stream log.
 * @param id - The stream's id.
 * @param after - The position the reader has (`-1`: from the start).
 * @param sse - Whether the reader's wire is SSE.
 * @param demand - The response's demand gate: the read waits while the client does not take more.
 * @returns The values to write, cold.
 */
export function readLogged(log: StreamLog, id: string, after: number, sse: boolean, demand: DemandGate): Observable<unknown> {
  return new Observable<unknown>((subscriber) => {
    const reading = new AbortController();
    const read = async (): Promise<void> => {
      for await (const record of log.read(id, { after, signal: reading.signal })) {
        if (!demand.isOpen) await demand.whenOpen();
        if (subscriber.closed) return;
        if (record.kind === 'value') {
          const { data, position } = record;
          subscriber.next(sse ? loggedFrame(data, id, position, eventOf(data)) : JSON.parse(data));
        } else if (record.outcome.kind === 'complete') {
          return subscriber.complete();
        } else {
          return subscriber.error(outcomeError(record.outcome, id));
        }
      }
    };
    read().catch((error: unknown) => subscriber.error(error));
    return () => reading.abort();
  });
}
