/**
 * verifyContinuation in virtual time: a real continuation passes (held only until its text tells), an answer started
 * again that repeats the delivered text exactly passes trimmed, one that repeats and then differs errors with
 * continuation_mismatch before anything passed; reasoning is checked when no text was delivered.
 */
import { from, lastValueFrom, mergeMap, Observable, of, take, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { ConfigError, NetworkError } from '../../src/core/errors';
import { deltaContent } from '../../src/operators/deltaContent';
import { verifyContinuation } from '../../src/operators/verifyContinuation';
import type { ChatCompletionChunk } from '../../src/core/schemas/upstream';
import { chunkOf } from '../helpers/chunkOf';

const mismatch = expect.objectContaining({ name: 'StreamProtocolError', code: 'continuation_mismatch' });
const text = (chunks: ReturnType<typeof chunkOf.content>[]): string =>
  chunks.map((c) => deltaContent(c.choices[0]?.delta ?? {})).join('');

describe('verifyContinuation', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });
  const content = '关于「你好」，数据流是';
  const v = {
    r: chunkOf.delta({ role: 'assistant', content: '' }),
    x: chunkOf.content('一个'),
    y: chunkOf.content('好问题'),
    a: chunkOf.content('关于「'),
    b: chunkOf.content('你好」，'),
    c: chunkOf.content('数据流'),
    d: chunkOf.content('是一个'),
    e: chunkOf.content('背压'),
    f: chunkOf.finish('stop'),
  };

  it('a real continuation passes as it comes (its first text tells at once)', () => {
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('r---x---y---f|', v).pipe(verifyContinuation({ content }))).toBe('----(rx)y---f|', v);
    });
  });

  it('an answer started again that repeats the delivered text exactly passes, that repetition removed', async () => {
    const out = await lastValueFrom(from([v.r, v.a, v.b, v.c, v.d, v.e, v.f]).pipe(verifyContinuation({ content }), toArray()));
    expect(text(out)).toBe('一个背压');
    expect(out[out.length - 1]!.choices[0]!.finish_reason).toBe('stop');
    scheduler.run(({ cold, expectObservable }) => {
      // Held until the whole delivered text was repeated (d ends it), then released trimmed.
      const trimmedD = chunkOf.content('一个');
      const empty = (c: typeof v.a) => ({ ...c, choices: [{ ...c.choices[0]!, delta: { content: '' } }] });
      expectObservable(cold('r-a-b-c-d---------e|', v).pipe(verifyContinuation({ content }))).toBe('--------(rabcd)---e|', {
        ...v,
        a: empty(v.a),
        b: empty(v.b),
        c: empty(v.c),
        d: trimmedD,
      });
    });
  });

  it('an answer started again that then differs is a continuation_mismatch, before anything passed', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('r-a-b-e-f|', v);
      expectObservable(source.pipe(verifyContinuation({ content }))).toBe('------#', undefined, mismatch);
      expectSubscriptions(source.subscriptions).toBe('^-----!');
    });
  });

  it('a repeat shorter than minRepeat is a continuation; a short one that ends the answer is one too', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const so = { ...v, a: chunkOf.content('关于'), b: chunkOf.content('背压') };
      expectObservable(cold('a-b---|', so).pipe(verifyContinuation({ content, minRepeat: 3 }))).toBe('--(ab)|', so);
      expectObservable(cold('a-f|', so).pipe(verifyContinuation({ content }))).toBe('---(af|)', so);
    });
  });

  it('an answer that repeats minRepeat characters and ends before the delivered text is a mismatch', () => {
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('a-b-f|', v).pipe(verifyContinuation({ content }))).toBe('-----#', undefined, mismatch);
    });
  });

  it('checks the reasoning when no text was delivered; passes through when nothing was delivered', async () => {
    const reasoning = chunkOf.delta({ reasoning_content: '嗯，让我想想' });
    const more = chunkOf.delta({ reasoning_content: '。回答' });
    const out = await lastValueFrom(from([reasoning, more, v.x]).pipe(verifyContinuation({ content: '', reasoning: '嗯，让我想想' }), toArray()));
    expect(out.map((c) => c.choices[0]!.delta?.reasoning_content ?? '').join('')).toBe('。回答');
    expect(text(out)).toBe('一个');
    const again = lastValueFrom(from([chunkOf.delta({ reasoning_content: '嗯，让我想想，' }), chunkOf.delta({ reasoning_content: '不同' })]).pipe(verifyContinuation({ content: '', reasoning: '嗯，让我想想，还有更多的推理' })));
    await expect(again).rejects.toEqual(mismatch);
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('a-b|', v).pipe(verifyContinuation({ content: '' }))).toBe('a-b|', v);
    });
  });

  it('an error before the decision passes through; a misused minRepeat is a ConfigError', () => {
    const cut = new NetworkError('reset', { midResponse: true });
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold('r-a-#', v, cut).pipe(verifyContinuation({ content }))).toBe('----#', undefined, cut);
    });
    expect(() => verifyContinuation({ content, minRepeat: 0 })).toThrow(ConfigError);
    expect(() => verifyContinuation({ content, minRepeat: 0 })).toThrow('omit it for 6');
  });

  it('lets a synchronous source see `closed` once the consumer is done (firehose + take), and does not break unsubscription chains', () => {
    const sent: number[] = [];
    const firehose = new Observable<ChatCompletionChunk>((subscriber) => {
      for (let i = 0; i < 100 && !subscriber.closed; i++) {
        sent.push(i);
        subscriber.next(chunkOf.content(`x${i}`));
      }
      subscriber.complete();
    });
    const seen: unknown[] = [];
    firehose.pipe(verifyContinuation({ content }), take(2)).subscribe((value) => seen.push(value));
    expect(seen).toHaveLength(2);
    expect(sent).toEqual([0, 1]);
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('--r--a--b--x--y--', v);
      const unsub = '          ------!';
      const result = source.pipe(
        mergeMap((c) => of(c)),
        verifyContinuation({ content }),
        mergeMap((c) => of(c)),
      );
      expectObservable(result, unsub).toBe('-------------', v);
      expectSubscriptions(source.subscriptions).toBe('^-----!');
    });
  });
});

