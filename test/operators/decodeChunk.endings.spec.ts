/**
 * decodeChunk's end-of-stream rule: `[DONE]` ends an answer; so does EOF once every started choice has its
 * `finish_reason` (some providers never send `[DONE]`), unless `requireDone`; EOF before that is `stream_incomplete`.
 * With `usageRequested`, an answer that ended so without usage says so in one last `usage_missing` chunk.
 */
import { TestScheduler } from 'rxjs/testing';
import { isConfigError } from '../../src/core/errors';
import { decodeChunk, type DecodeChunkConfig } from '../../src/operators/decodeChunk';
import type { SseEvent } from '../../src/core/types';

const ev = (chunk: Record<string, unknown>): SseEvent => ({ data: JSON.stringify(chunk) });
const choice = (index: number, content: string, finish: string | null = null) => ({
  index,
  delta: { content },
  finish_reason: finish,
});
const chunk = (...choices: ReturnType<typeof choice>[]) => ({ id: 'c', model: 'm', created: 1, choices });
const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
const incomplete = expect.objectContaining({ name: 'StreamProtocolError', code: 'stream_incomplete' });
const MISSING = { object: 'chat.completion.chunk', choices: [], usage_missing: true };

describe('decodeChunk: how a stream ends', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  const run = (
    marbles: string,
    values: Record<string, Record<string, unknown>>,
    expected: string,
    out: Record<string, unknown>,
    error?: unknown,
    config?: DecodeChunkConfig,
  ) =>
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(
      ({ cold, expectObservable, expectSubscriptions }) => {
        const events = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, ev(v)]));
        const source = cold(marbles, events);
        expectObservable(source.pipe(decodeChunk(config))).toBe(expected, out, error);
        expectSubscriptions(source.subscriptions).toBe(`^${'-'.repeat(marbles.indexOf('|') - 1)}!`);
      },
    );

  it('EOF after the finish_reason completes: a complete answer without [DONE]', () => {
    const a = chunk(choice(0, 'Hi'));
    const f = chunk(choice(0, '', 'stop'));
    run('-a-f-|', { a, f }, '-a-f-|', { a, f });
  });

  it('EOF before any finish_reason is stream_incomplete', () => {
    const a = chunk(choice(0, 'Hi'));
    run('-a-|', { a }, '-a-#', { a }, incomplete);
  });

  it("an empty finish_reason ('', as some gateways send) does not end a choice", () => {
    const a = chunk(choice(0, 'Hi', ''));
    run('-a-|', { a }, '-a-#', { a }, incomplete);
  });

  it('n > 1: EOF while one started choice is still open is stream_incomplete; once all finished, complete', () => {
    const a = chunk(choice(0, 'A'), choice(1, 'B'));
    const f0 = chunk(choice(0, '', 'stop'));
    const f1 = chunk(choice(1, '', 'length'));
    run('-a-x-|', { a, x: f0 }, '-a-x-#', { a, x: f0 }, incomplete);
    run('-a-x-y-|', { a, x: f0, y: f1 }, '-a-x-y-|', { a, x: f0, y: f1 });
  });

  it('a choice that starts after the others finished must finish too', () => {
    const f0 = chunk(choice(0, 'A', 'stop'));
    const late = chunk(choice(1, 'B'));
    run('-a-b-|', { a: f0, b: late }, '-a-b-#', { a: f0, b: late }, incomplete);
  });

  it('large choice indexes are followed too (an open one keeps the stream incomplete)', () => {
    const a = chunk(choice(0, 'A', 'stop'), choice(1000, 'B'));
    const f = chunk(choice(1000, '', 'stop'));
    run('-a-|', { a }, '-a-#', { a }, incomplete);
    run('-a-f-|', { a, f }, '-a-f-|', { a, f });
  });

  it('choices without index are told apart by position', () => {
    const a = { choices: [{ delta: { content: 'A' } }, { delta: { content: 'B' }, finish_reason: 'stop' }] };
    const b = { choices: [{ delta: {}, finish_reason: 'stop' }] };
    run('-a-b-|', { a, b }, '-a-b-|', { a, b });
  });

  it('EOF with no choice at all (only choices: [] chunks, as Azure opens) is stream_incomplete', () => {
    const filter = { id: '', model: '', created: 0, object: '', choices: [], prompt_filter_results: [] };
    run('-a-|', { a: filter }, '-a-#', { a: filter }, incomplete);
  });

  it('requireDone: true keeps the strict rule — EOF after the finish_reason is stream_incomplete', () => {
    const f = chunk(choice(0, 'Hi', 'stop'));
    run('-a-|', { a: f }, '-a-#', { a: f }, incomplete, { requireDone: true });
  });

  it('requireDone: true still completes at [DONE]', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const f = chunk(choice(0, 'Hi', 'stop'));
      const source = cold('-a-D-|', { a: ev(f), D: { data: '[DONE]' } });
      expectObservable(source.pipe(decodeChunk({ requireDone: true }))).toBe('-a-|', { a: f });
    });
  });

  describe('usageRequested', () => {
    it('EOF after the finish_reason without any usage: one last usage_missing chunk, then completion', () => {
      const f = chunk(choice(0, 'Hi', 'stop'));
      run('-a-|', { a: f }, '-a-(m|)', { a: f, m: MISSING }, undefined, { usageRequested: true });
    });

    it('no usage_missing chunk when a usage came (top level, in a choice, or in x_groq)', () => {
      const top = { ...chunk(choice(0, 'Hi', 'stop')), usage };
      run('-a-|', { a: top }, '-a-|', { a: top }, undefined, { usageRequested: true });
      const inChoice = { choices: [{ ...choice(0, 'Hi', 'stop'), usage }] };
      run('-a-|', { a: inChoice }, '-a-|', { a: { ...inChoice, usage } }, undefined, { usageRequested: true });
      const groq = { ...chunk(choice(0, 'Hi', 'stop')), x_groq: { id: 'req_1', usage } };
      run('-a-|', { a: groq }, '-a-|', { a: { ...groq, usage } }, undefined, { usageRequested: true });
    });

    it('no usage_missing chunk at [DONE] (the provider had its chance) nor without usageRequested', () => {
      scheduler.run(({ cold, expectObservable }) => {
        const f = chunk(choice(0, 'Hi', 'stop'));
        const source = cold('-a-D|', { a: ev(f), D: { data: '[DONE]' } });
        expectObservable(source.pipe(decodeChunk({ usageRequested: true }))).toBe('-a-|', { a: f });
      });
      const f = chunk(choice(0, 'Hi', 'stop'));
      run('-a-|', { a: f }, '-a-|', { a: f });
    });

    it('a cut stream stays an error, usage or not', () => {
      const a = chunk(choice(0, 'Hi'));
      run('-a-|', { a }, '-a-#', { a }, incomplete, { usageRequested: true });
    });
  });

  it('refuses non-boolean requireDone / usageRequested with a ConfigError that says what to pass', () => {
    for (const config of [{ requireDone: 'yes' }, { usageRequested: 1 }] as unknown as DecodeChunkConfig[]) {
      let error: unknown;
      try {
        decodeChunk(config);
      } catch (caught) {
        error = caught;
      }
      expect(isConfigError(error)).toBe(true);
      expect((error as Error).message).toMatch(/must be a boolean/);
    }
  });
});
