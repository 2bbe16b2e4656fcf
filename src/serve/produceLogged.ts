import type { Observable, Subscriber } from 'rxjs';
import { isServerSentEvent } from '../core/isServerSentEvent.js';
import { toErrorResponse } from '../core/toErrorResponse.js';
import type { StreamProducer } from '../store/StreamProducer.js';
import { stringifyValue } from '../wire/stringifyValue.js';
import { WireText } from '../wire/WireText.js';
import { loggedFrame } from './loggedFrame.js';
import { outcomeError } from './outcomeError.js';

/** Options of {@link produceLogged}. */
export interface ProduceLoggedConfig {
  /**
   * What the client's wire gets of each value: `'frame'` (SSE) its frame with its `id:` (`loggedFrame`), `'line'`
   * its NDJSON line — both made of the logged JSON text, so a value is stringified once —, `'value'` (another wire,
   * the UI message stream) the value itself, for the wire to encode.
   */
  readonly as: 'frame' | 'line' | 'value';
  /** Literal secrets to redact from a logged error body. */
  readonly secrets: readonly string[];
  /** Called with each value of the answer as it is produced (the request log's usage and route). */
  readonly onValue?: (value: unknown) => void;
  /** Called once when production stops (the answer's end, its error, a cancel or an abandon): frees its client's place. */
  readonly onEnd?: () => void;
}

/**
 * Produces a resumable answer: subscribes to `answer` ONCE, on its own — not for the client, so a client that goes
 * away does not stop it — appends every value to the stream log (write-behind: `append` never waits), and hands each
 * to the producer's own client while it is there.
 *
 * ```text
 * answer:    ──a──b──c──|                      log:    a b c complete
 * client:    ──A──B─x (gone: not a cancel)     the log goes on; no reader for abandonAfterMs → upstream aborted
 * producer.signal (cancel / abandon) → upstream unsubscribed, the log ends with it, the client gets its in-band error
 * ```
 *
 * 1. Each value is logged as its JSON (an SSE `event: restart` frame as its chunk's), at the position `append` gives;
 *    the client gets that same text in its wire's frame (`WireText`), so nothing is stringified twice.
 * 2. The end is logged: `complete`, or the error body the client is sent (`toErrorResponse`, secrets redacted).
 * 3. The client counts as attached (`attachClient`) until it unsubscribes.
 *
 * @param producer - The stream's producer (`StreamLog.open`).
 * @param answer - The client's answer (the upstream call), cold.
 * @param client - The producer's own client (the writer's subscriber).
 * @param config - The wire kind, the secrets, a value hook.
 */
export function produceLogged(producer: StreamProducer, answer: Observable<unknown>, client: Subscriber<unknown>, config: ProduceLoggedConfig): void {
  const { id } = producer;
  const { as, secrets, onValue } = config;
  let onEnd = config.onEnd;
  const produced = (): void => {
    const call = onEnd;
    onEnd = undefined;
    call?.();
  };
  let reader: Subscriber<unknown> | undefined = client;
  const detach = producer.attachClient();
  client.add(() => {
    reader = undefined;
    detach(); // a disconnect is not a cancel: production goes on into the log
  });
  const stop = (): void => {
    upstream.unsubscribe(); // aborts the upstream request
    const kind = producer.stopReason ?? 'cancelled';
    void producer.end({ kind });
    produced();
    reader?.error(outcomeError({ kind }, id));
  };
  const upstream = answer.subscribe({
    next: (value) => {
      const event = isServerSentEvent(value) ? value : undefined;
      const data = event === undefined ? value : event.data;
      const text = stringifyValue(data);
      const json = text ?? 'null';
      const position = producer.append(json);
      onValue?.(data);
      if (reader === undefined) return;
      // NDJSON: the logged text as the line (a value without a JSON form goes on, for the writer to refuse it).
      if (as === 'frame') reader.next(loggedFrame(json, id, position, event?.event, true)); // stringifyValue's text (or 'null')
      else reader.next(as === 'line' && text !== undefined ? new WireText(`${json}\n`) : value);
    },
    error: (error: unknown) => {
      producer.signal.removeEventListener('abort', stop);
      const { status, body } = toErrorResponse(error, { secrets });
      void producer.end({ kind: 'error', status, error: body });
      produced();
      reader?.error(error);
    },
    complete: () => {
      producer.signal.removeEventListener('abort', stop);
      void producer.end({ kind: 'complete' });
      produced();
      reader?.complete();
    },
  });
  if (producer.signal.aborted) stop();
  else if (!upstream.closed) producer.signal.addEventListener('abort', stop, { once: true });
}
