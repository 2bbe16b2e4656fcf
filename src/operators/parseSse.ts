import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';
import { Observable, type OperatorFunction } from 'rxjs';
import { createOperatorSubscriber } from '../core/createOperatorSubscriber.js';
import { ConfigError, StreamProtocolError } from '../core/errors.js';
import { createEventCostCounter } from './createEventCostCounter.js';
import { createUtf8Decoder, type Utf8Decoder } from './createUtf8Decoder.js';
import { createSseFastPath } from './createSseFastPath.js';
import type { SseEvent } from '../core/types.js';

/** Options of {@link parseSse}. */
export interface ParseSseConfig {
  /**
   * The most UTF-16 code units one event may occupy: its `data` plus the line still being read (an event of more than
   * 64 lines is also charged 32 units per further line: see rule 8). Beyond it the stream ends with
   * `StreamProtocolError('sse_event_too_large')` and the source is unsubscribed. Default 16 MiB (16 777 216).
   */
  maxEventSize?: number;
  /** Called with the text of every comment line (`: keep-alive` → `'keep-alive'`), so keep-alives are observable. */
  onComment?: (text: string) => void;
  /**
   * What invalid UTF-8 in byte chunks does: `'error'` (default) ends the stream with
   * `StreamProtocolError('sse_invalid_utf8')`; `'replace'` decodes it to U+FFFD as browsers do.
   */
  invalidUtf8?: 'error' | 'replace';
}

const DEFAULT_MAX_EVENT_SIZE = 16 * 1024 * 1024;
/** Lines an event may have before each further line is charged {@link LINE_COST} (small events: characters only). */
const FREE_LINES = 64;
/** What a line beyond {@link FREE_LINES} costs, in UTF-16 units: ~64 bytes of string bookkeeping per joined line. */
const LINE_COST = 32;
const CR = 13;
const LF = 10;
const BOM = 0xfeff;

/**
 * Parses a Server-Sent Events byte (or text) stream into its events, as the WHATWG parser dispatches them.
 *
 * Bytes in, events out; however the input is split, the same events come out.
 *
 * ```text
 * source:  --"data: a\n\nda"--"ta: b\r"--"\r"--|
 * parseSse:
 * result:  --{data:'a'}-------------------{data:'b'}--|
 * ```
 *
 * 1. Bytes are decoded as UTF-8 with a streaming decoder (characters split across chunks are joined); strings are
 *    taken as already decoded. One leading BOM (U+FEFF) is removed.
 * 2. Lines end with CR, LF or CRLF, also when a CR and its LF arrive in different chunks. A blank line dispatches the
 *    event; a block without `data` dispatches nothing.
 * 3. `data` lines join with LF; one space after the colon is removed; `event` sets the type (absent without an
 *    `event` line or with an empty one; an explicit `event: message` is kept as sent); comments go to `onComment`;
 *    `retry` and unknown fields are ignored; a line without a colon is a field with an empty value.
 * 4. `id` (without NUL) sets the last event ID, which stays in force for later events (`SseEvent.id`); `id:` with an
 *    empty value clears it. Deviation (eventsource-parser reports ids only with events): an `id` in a block without
 *    `data` is not seen. OpenAI-compatible providers send no ids.
 * 5. At the end of the input an unterminated event is discarded. An event is dispatched as soon as its blank line has
 *    arrived (also when that line ends with a CR at the end of a chunk).
 * 6. Errors: invalid UTF-8 (`sse_invalid_utf8`, also an unfinished character at the end; the events before the bad
 *    byte are still emitted) and an oversize event (`sse_event_too_large`) end the stream and unsubscribe the source.
 *    Source errors pass through.
 * 7. `maxEventSize` is a memory guard, checked where text is buffered: an event's `data` at dispatch, and, whenever a
 *    chunk ends, the event's data so far plus the unfinished line (field name included). So, whatever the split, an
 *    event whose whole block (all its lines, field names included) fits the limit always passes, and an event whose
 *    `data` exceeds it always fails, after the same earlier events. In between — `data` within a few characters of
 *    the limit, or a comment or field line longer than it — the outcome depends on where chunks end (deliberate: an
 *    exact rule would scan every line twice on the hot path).
 * 8. Lines cost memory beyond their characters (each `data` line joined costs about 64 bytes of string bookkeeping),
 *    so an event of more than 64 lines (comments not counted) is charged its characters so far plus 32 units for each
 *    further line, counted as lines arrive: one event of millions of `data: x` lines fails at about
 *    `maxEventSize / 40` lines, its memory bounded by about twice `maxEventSize` bytes (it held ~500 MB under the
 *    default 16 MiB when only characters counted). Events of up to 64 lines are judged as in 7; a chunk of whole
 *    events costs O(1) more.
 *
 * ## Example
 * ```ts
 * fromBody(response.body).pipe(parseSse({ onComment: () => idle.reset() }), decodeChunk())
 * ```
 *
 * @param config - Limits, the comment callback and the invalid-UTF-8 policy.
 * @returns An operator from `Uint8Array | string` chunks to {@link SseEvent}s.
 */
export function parseSse(config: ParseSseConfig = {}): OperatorFunction<Uint8Array | string, SseEvent> {
  const maxEventSize = config.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE;
  if (!(maxEventSize > 0) || (maxEventSize !== Infinity && !Number.isInteger(maxEventSize)))
    throw new ConfigError(
      `parseSse: maxEventSize must be a positive integer (UTF-16 units), got ${String(maxEventSize)}; omit it for 16 MiB.`,
    );
  const invalidUtf8 = config.invalidUtf8 ?? 'error';
  if (invalidUtf8 !== 'error' && invalidUtf8 !== 'replace')
    throw new ConfigError(`parseSse: invalidUtf8 must be 'error' or 'replace', got ${JSON.stringify(invalidUtf8)}.`);
  const userOnComment = config.onComment;
  if (userOnComment !== undefined && typeof userOnComment !== 'function')
    throw new ConfigError('parseSse: onComment must be a function `(text: string) => void`.');

  return (source) =>
    new Observable<SseEvent>((subscriber) => {
      let lastEventId: string | undefined;
      let failure: StreamProtocolError | undefined;
      let started = false; // a non-empty text was fed: the BOM chance is over
      let skipLf = false; // the last text ended with CR, already completed with an LF: drop a leading LF of the next
      let utf8: Utf8Decoder | undefined;
      let bytesPending = false; // the last chunk was bytes: the decoder may hold part of a character
      const cost = maxEventSize === Infinity ? undefined : createEventCostCounter(FREE_LINES, LINE_COST);
      const tooLarge = (): StreamProtocolError =>
        new StreamProtocolError(
          'sse_event_too_large',
          `SSE event larger than maxEventSize (${maxEventSize} UTF-16 units)`,
        );

      const parser = createParser({
        onEvent(message: EventSourceMessage) {
          if (failure !== undefined || subscriber.closed) return;
          // eventsource-parser reports the id of the event's own block only; the last event ID persists (§9.2.6).
          if (message.id !== undefined) lastEventId = message.id === '' ? undefined : message.id;
          if (message.data.length > maxEventSize) {
            failure = tooLarge();
            return;
          }
          const event: SseEvent = { data: message.data };
          if (message.event !== undefined) event.event = message.event;
          if (lastEventId !== undefined) event.id = lastEventId;
          subscriber.next(event);
        },
        onError(error: ParseError) {
          // 'invalid-retry' and 'unknown-field' are ignored, as the spec says.
          if (error.type === 'max-buffer-size-exceeded') failure ??= tooLarge();
        },
        onComment(text: string) {
          if (failure === undefined && userOnComment !== undefined && !subscriber.closed) userOnComment(text);
        },
        maxBufferSize: maxEventSize === Infinity ? undefined : maxEventSize,
      });
      // eventsource-parser strips a mis-decoded BOM ('\xEF\xBB\xBF') from its first chunk and never a real U+FEFF:
      // spend its first-chunk check on '' and strip U+FEFF below.
      parser.feed('');

      const takeData = (data: string): boolean => {
        if (data.length > maxEventSize) {
          failure = tooLarge();
          return false;
        }
        const event: SseEvent = { data };
        if (lastEventId !== undefined) event.id = lastEventId;
        subscriber.next(event);
        return !subscriber.closed;
      };

      // The fast path runs while the general parser holds nothing: at the start, and again after a text it was fed
      // ended with a blank line (LF LF).
      const fast = createSseFastPath(maxEventSize, takeData, () => (failure = tooLarge()));

      const feedText = (text: string): void => {
        if (text.length === 0) return;
        if (!started) {
          started = true;
          if (text.charCodeAt(0) === BOM) {
            text = text.slice(1);
            if (text.length === 0) return;
          }
        }
        if (skipLf) {
          skipLf = false;
          if (text.charCodeAt(0) === LF) {
            text = text.slice(1);
            if (text.length === 0) return;
          }
        }
        if (fast.active) {
          const rest = fast.take(text);
          if (failure !== undefined) throw failure;
          if (rest === undefined) return;
          text = rest;
        }
        parser.feed(text);
        // The parser bounds the event's characters; the counter its lines too (each joined line costs memory).
        if (failure === undefined && cost !== undefined && cost.push(text) > maxEventSize) failure = tooLarge();
        if (failure !== undefined) throw failure; // the parser is terminated now: feed it nothing more
        // eventsource-parser holds a final CR back until it sees whether an LF follows, so an event ended by CR would
        // wait for the next chunk (or never come, at the end). A CR ends its line at once (§9.2.6): complete it as
        // CRLF now, and drop the LF if the next chunk starts with the other half of a real CRLF.
        if (text.charCodeAt(text.length - 1) === CR) {
          parser.feed('\n');
          skipLf = true;
        } else if (text.charCodeAt(text.length - 1) === LF && text.charCodeAt(text.length - 2) === LF) fast.resume();
        if (failure !== undefined) throw failure;
      };

      source.subscribe(
        createOperatorSubscriber<Uint8Array | string>(
          subscriber,
          (chunk) => {
            if (typeof chunk === 'string') {
              if (bytesPending && utf8 !== undefined) {
                bytesPending = false;
                feedText(utf8.end());
                utf8.check();
              }
              feedText(chunk);
            } else {
              bytesPending = true;
              utf8 ??= createUtf8Decoder(invalidUtf8);
              feedText(utf8.decode(chunk));
              utf8.check(); // after the text before a bad byte: the same events for every split
            }
          },
          () => {
            if (bytesPending && utf8 !== undefined) {
              feedText(utf8.end());
              utf8.check(); // an unfinished character is invalid UTF-8 too
            }
            // Whatever is still buffered is an unterminated event: discarded (§9.2.6, end of file).
          },
        ),
      );
    });
}
