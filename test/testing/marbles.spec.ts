import fc from 'fast-check';
import { last, lastValueFrom, map, of } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { ConfigError } from '../../src/core/errors';
import { accumulateDeltas } from '../../src/operators/accumulateDeltas';
import { decodeChunk } from '../../src/operators/decodeChunk';
import { parseSse } from '../../src/operators/parseSse';
import { chunkMarbles } from '../../src/testing/chunkMarbles';
import { coldSse } from '../../src/testing/coldSse';
import { sseMarbles } from '../../src/testing/sseMarbles';
import { sseText } from '../../src/testing/sseText';
import { transcriptFrames } from '../../src/testing/transcriptFrames';

const TRANSCRIPT = `
# a thinking model that answers in Chinese
reasoning: 让我想想
content: 你好
content: " 世界 🌏\\n"
`;

describe('marble helpers', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('transcriptFrames writes the dialect frames, then [DONE]', () => {
    const frames = transcriptFrames('content: 你好', { dialect: 'moonshot' });
    expect(frames).toEqual([
      'data: {"id":"chatcmpl-test","object":"chat.completion.chunk","created":1767225600,"model":"moonshot-v1-8k","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"system_fingerprint":"fpv0_test"}\n\n',
      'data: {"id":"chatcmpl-test","object":"chat.completion.chunk","created":1767225600,"model":"moonshot-v1-8k","choices":[{"index":0,"delta":{"content":"你好"},"finish_reason":null}],"system_fingerprint":"fpv0_test"}\n\n',
      'data: {"id":"chatcmpl-test","object":"chat.completion.chunk","created":1767225600,"model":"moonshot-v1-8k","choices":[{"index":0,"delta":{},"finish_reason":"stop","usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}],"system_fingerprint":"fpv0_test"}\n\n',
      'data: [DONE]\n\n',
    ]);
    expect(transcriptFrames('content: x', { done: false }).pop()).not.toBe('data: [DONE]\n\n');
  });

  it('sseText feeds the chatflux pipeline: reasoning, content with JSON-quoted text, and a tool call in fragments', async () => {
    const text = sseText(`${TRANSCRIPT}\ntool: get_weather\nargs: {"city":\nargs: "\\"北京\\"}"`, {
      dialect: 'deepseek',
      model: 'deepseek-reasoner',
    });
    const answer = await lastValueFrom(of(text).pipe(parseSse(), decodeChunk(), accumulateDeltas(), last()));
    expect(answer.model).toBe('deepseek-reasoner');
    expect(answer.choices[0]?.message).toEqual(
      expect.objectContaining({
        reasoning_content: '让我想想',
        content: '你好 世界 🌏\n',
        tool_calls: [
          { id: 'call_00_test', type: 'function', function: { name: 'get_weather', arguments: '{"city":"北京"}' } },
        ],
      }),
    );
    expect(answer.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('rejects an unknown kind or args before tool with a ConfigError', () => {
    expect(() => sseText('contents: x')).toThrow(ConfigError);
    expect(() => sseText('args: {}')).toThrow(/"args:" needs a "tool:" line/);
  });

  it('sseMarbles gives one frame per frame of virtual time, ending with |', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { marbles, values } = sseMarbles('content: 你好\ncontent: 🌏');
      expect(marbles).toBe('abcde|');
      const source = cold(marbles, values);
      const contents = source.pipe(
        parseSse(),
        decodeChunk(),
        map((chunk) => chunk.choices[0]?.delta?.content),
      );
      expectObservable(contents).toBe('abcd|', { a: '', b: '你好', c: '🌏', d: '' });
      expectSubscriptions(source.subscriptions).toBe('^---!'); // [DONE] completes and cancels the source
    });
  });

  it('sseMarbles with done:false stays open, like a stalled provider', () => {
    expect(sseMarbles('content: x', { done: false }).marbles).toBe('abc');
  });

  it('chunkMarbles gives decoded chunks, completing at the [DONE] frame', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const { marbles, values } = chunkMarbles('content: 你好', { dialect: 'moonshot', includeUsage: true });
      expect(marbles).toBe('abcd|');
      expect(values.d?.choices).toEqual([]);
      const answer = cold(marbles, values).pipe(
        accumulateDeltas(),
        last(),
        map((c) => [c.choices[0]?.message.content, c.usage?.total_tokens]),
      );
      expectObservable(answer).toBe('----(a|)', { a: ['你好', 11] });
    });
  });

  it('coldSse spaces frames in virtual time and is cold', () => {
    scheduler.run(({ expectObservable }) => {
      const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
      const source = coldSse('content: 你好', { frameTime: 3 }).pipe(map(text));
      const frames = transcriptFrames('content: 你好');
      expectObservable(source).toBe('a--b--c--(d|)', { a: frames[0], b: frames[1], c: frames[2], d: frames[3] });
      expectObservable(source).toBe('a--b--c--(d|)', { a: frames[0], b: frames[1], c: frames[2], d: frames[3] });
    });
  });

  it('coldSse cut in pieces of any size (inside characters too) gives the same answer', async () => {
    const expected = await lastValueFrom(
      coldSse(TRANSCRIPT).pipe(parseSse(), decodeChunk(), accumulateDeltas(), last()),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), async (pieceSize) => {
        const answer = await lastValueFrom(
          coldSse(TRANSCRIPT, { pieceSize }).pipe(parseSse(), decodeChunk(), accumulateDeltas(), last()),
        );
        expect(answer).toEqual(expected);
      }),
      { numRuns: 25 },
    );
  });
});
