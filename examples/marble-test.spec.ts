/**
 * How to marble-test your own transformation of a chat stream, in virtual time, with rxjs's `TestScheduler` and the
 * transcript helpers of `chatflux/testing` (`chunkMarbles`: decoded chunks; `sseMarbles`: the raw SSE frames).
 *
 * The code under test is `sentences()`, an operator a user might write: it turns a chat stream into whole
 * sentences (for text-to-speech, say), holding back an unfinished one until the answer ends.
 */
import { EMPTY, concatWith, defer, mergeMap, of, take, type OperatorFunction } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { chunkTimeouts, decodeChunk, parseSse, type ChatCompletionChunk } from 'chatflux';
import { chunkMarbles, sseMarbles } from 'chatflux/testing';

// ---- the code under test ------------------------------------------------------------------------------------------

/** Whole sentences of choice 0's text; the unfinished rest comes out when the source completes. */
export function sentences(): OperatorFunction<ChatCompletionChunk, string> {
  return (source) =>
    defer(() => {
      let pending = '';
      return source.pipe(
        mergeMap((chunk) => {
          pending += chunk.choices[0]?.delta?.content ?? '';
          const complete = pending.match(/[^。！？!?]*[。！？!?]/g) ?? [];
          pending = pending.slice(complete.join('').length);
          return complete;
        }),
        concatWith(defer(() => (pending === '' ? EMPTY : of(pending)))),
      );
    });
}

// ---- the tests ----------------------------------------------------------------------------------------------------

/** One frame per upstream chunk: role, "你好。", "世界", "！再见", finish_reason; then `[DONE]`. */
const TRANSCRIPT = `
content: 你好。
content: 世界
content: ！再见
`;
const SENTENCES = { x: '你好。', y: '世界！', z: '再见' };

describe('sentences()', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('emits each sentence once it is complete, and the rest at the end', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { marbles, values } = chunkMarbles(TRANSCRIPT); // 'abcde|'
      const chunks = cold(marbles, values);
      expectObservable(chunks.pipe(sentences())).toBe('-x-y-(z|)', SENTENCES);
      expectSubscriptions(chunks.subscriptions).toBe('^----!');
    });
  });

  it('works on the raw SSE frames, through parseSse and decodeChunk', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { marbles, values } = sseMarbles(TRANSCRIPT); // 'abcdef|': f is `data: [DONE]`
      const frames = cold(marbles, values);
      expectObservable(frames.pipe(parseSse(), decodeChunk(), sentences())).toBe('-x-y-(z|)', SENTENCES);
      // decodeChunk unsubscribes at [DONE]: the HTTP body would be released there.
      expectSubscriptions(frames.subscriptions).toBe('^----!');
    });
  });

  it('passes on the error of a stream cut before its finish_reason, without the unfinished sentence', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const { marbles, values } = sseMarbles(TRANSCRIPT, { done: false }); // 'abcde': no [DONE], no completion
      const cut = cold(`${marbles.slice(0, -1)}|`, values); // the connection closes before 'e', the finishing chunk
      expectObservable(cut.pipe(parseSse(), decodeChunk(), sentences())).toBe(
        '-x-y#',
        SENTENCES,
        expect.objectContaining({ name: 'StreamProtocolError', code: 'stream_incomplete' }),
      );
    });
  });

  it('finishes an answer that ends after its finish_reason without [DONE] (some providers never send it)', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const { marbles, values } = sseMarbles(TRANSCRIPT, { done: false }); // 'abcde': 'e' carries finish_reason
      const ended = cold(`${marbles}|`, values); // the connection closes after the finishing chunk
      expectObservable(ended.pipe(parseSse(), decodeChunk(), sentences())).toBe('-x-y-(z|)', SENTENCES);
    });
  });

  it('ends a stalled stream with a timeout, in virtual time', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { marbles, values } = chunkMarbles(TRANSCRIPT, { done: false }); // the provider stalls after 'e'
      const stalled = cold(marbles, values);
      // chunkTimeouts runs on asyncScheduler, which TestScheduler.run() drives: 10 "ms" are 10 frames.
      expectObservable(stalled.pipe(chunkTimeouts({ idle: 10 }), sentences())).toBe(
        '-x-y 10ms #',
        SENTENCES,
        expect.objectContaining({ name: 'TimeoutError', phase: 'idle' }),
      );
      expectSubscriptions(stalled.subscriptions).toBe('^ 13ms !');
    });
  });

  it('stops reading the upstream when the consumer has enough', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { marbles, values } = chunkMarbles(TRANSCRIPT);
      const chunks = cold(marbles, values);
      expectObservable(chunks.pipe(sentences(), take(1))).toBe('-(x|)', SENTENCES);
      expectSubscriptions(chunks.subscriptions).toBe('^!');
    });
  });
});
