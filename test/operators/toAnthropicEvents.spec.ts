import { Observable, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { UpstreamStreamError } from '../../src/core/errors';
import type { LlmClientOutput, LlmClientOutputChunk, Usage } from '../../src/core/schemas';
import { toAnthropicEvents } from '../../src/operators/toAnthropicEvents';
import { toAnthropicMessage } from '../../src/operators/toAnthropicMessage';
import { toAnthropicStopReason } from '../../src/operators/toAnthropicStopReason';
import { toAnthropicUsage } from '../../src/operators/toAnthropicUsage';

const usage: Usage = { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37, prompt_cache_hit_tokens: 20 };
const piece = (message: Partial<LlmClientOutputChunk['message']>, index: number, done = false, extra: Partial<LlmClientOutputChunk> = {}): LlmClientOutputChunk => ({
  message: { role: 'assistant', content: '', ...message },
  done,
  index,
  ...extra,
});
const call = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });
const zero = { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };
const start = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null, stop_sequence: null, usage: zero } };
const blockStart = (index: number, content_block: unknown) => ({ type: 'content_block_start', index, content_block });
const delta = (index: number, d: unknown) => ({ type: 'content_block_delta', index, delta: d });
const stop = (index: number) => ({ type: 'content_block_stop', index });
const end = (stop_reason: string, u = toAnthropicUsage(usage)) => ({ type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage: u });

describe('toAnthropicEvents', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });
  const config = { model: 'claude-x', id: 'msg_1' };

  it('opens the message, gives thinking and text in blocks of their own, stops each, and ends with stop reason and usage', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('r 9ms R 9ms a 9ms b 9ms (d|)', {
        r: piece({ reasoning_content: 'Hm' }, 0),
        R: piece({ reasoning_content: ', yes' }, 1),
        a: piece({ content: 'Hi' }, 2),
        b: piece({ content: ' there' }, 3),
        d: piece({}, 4, true, { finish_reason: 'stop', usage }),
      });
      expectObservable(source.pipe(toAnthropicEvents(config))).toBe('(STr) 5ms R 9ms (PBa) 5ms b 9ms (QM|)', {
        S: start,
        T: blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
        r: delta(0, { type: 'thinking_delta', thinking: 'Hm' }),
        R: delta(0, { type: 'thinking_delta', thinking: ', yes' }),
        P: stop(0),
        B: blockStart(1, { type: 'text', text: '' }),
        a: delta(1, { type: 'text_delta', text: 'Hi' }),
        b: delta(1, { type: 'text_delta', text: ' there' }),
        Q: stop(1),
        M: end('end_turn'),
      });
    });
  });

  it('gives each tool call a tool_use block: start, its arguments as one input_json_delta, stop', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('a 9ms (d|)', {
        a: piece({ content: 'Let me look.' }, 0),
        d: piece({ tool_calls: [call('call_1', 'f', '{"x":1}'), call('call_2', 'g', '{}')] }, 1, true, { finish_reason: 'tool_calls', usage }),
      });
      expectObservable(source.pipe(toAnthropicEvents(config))).toBe('(SBa) 5ms (PFfpGgqM|)', {
        S: start,
        B: blockStart(0, { type: 'text', text: '' }),
        a: delta(0, { type: 'text_delta', text: 'Let me look.' }),
        P: stop(0),
        F: blockStart(1, { type: 'tool_use', id: 'call_1', name: 'f', input: {} }),
        f: delta(1, { type: 'input_json_delta', partial_json: '{"x":1}' }),
        p: stop(1),
        G: blockStart(2, { type: 'tool_use', id: 'call_2', name: 'g', input: {} }),
        g: delta(2, { type: 'input_json_delta', partial_json: '{}' }),
        q: stop(2),
        M: end('tool_use'),
      });
    });
  });

  it('an empty answer is message_start and message_delta; a route\'s report rides on message_delta', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const attempts = [{ target: 't1', provider: 'deepseek', outcome: 'completed' as const }];
      const source = cold('--(d|)', { d: piece({}, 0, true, { finish_reason: 'length', target: 't1', provider: 'deepseek', attempts }) });
      expectObservable(source.pipe(toAnthropicEvents(config))).toBe('--(SM|)', {
        S: start,
        M: { ...end('max_tokens', zero), target: 't1', provider: 'deepseek', attempts },
      });
    });
  });

  it('passes an error through after what was said (no block stop, no message_delta)', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const error = new UpstreamStreamError('cut');
      const source = cold('a 9ms #', { a: piece({ content: 'Hi' }, 0) }, error);
      expectObservable(source.pipe(toAnthropicEvents(config))).toBe('(SBa) 5ms #', { S: start, B: blockStart(0, { type: 'text', text: '' }), a: delta(0, { type: 'text_delta', text: 'Hi' }) }, error);
    });
  });

  it('refuses a restart chunk: Anthropic\'s stream cannot say it', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('a 9ms r', { a: piece({ content: 'Hi' }, 0), r: piece({}, 1, false, { restart: { code: 'network' } }) });
      expectObservable(source.pipe(toAnthropicEvents(config))).toBe('(SBa) 5ms #', { S: start, B: blockStart(0, { type: 'text', text: '' }), a: delta(0, { type: 'text_delta', text: 'Hi' }) }, expect.objectContaining({ name: 'ConfigError' }));
    });
  });

  it('stops listening to a synchronous source when unsubscribed', () => {
    let sent = 0;
    const firehose = new Observable<LlmClientOutputChunk>((subscriber) => {
      for (let i = 0; i < 1000 && !subscriber.closed; i++) {
        sent++;
        subscriber.next(piece({ content: 'x' }, i));
      }
    });
    firehose.pipe(toAnthropicEvents(config), take(4)).subscribe();
    expect(sent).toBe(2); // message_start, block start, delta from the first; the second's delta is the fourth
  });

  it('does not break unsubscription chains', () => {
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('-a-b-c-', { a: piece({ content: 'a' }, 0), b: piece({ content: 'b' }, 1), c: piece({ content: 'c' }, 2) });
      expectObservable(source.pipe(toAnthropicEvents(config)), '^--!').toBe('-(SBa)-', { S: start, B: blockStart(0, { type: 'text', text: '' }), a: delta(0, { type: 'text_delta', text: 'a' }) });
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });
});

describe('toAnthropicMessage', () => {
  const output = (message: Partial<LlmClientOutput['message']>, extra: Partial<LlmClientOutput> = {}): LlmClientOutput => ({
    id: 'abc',
    model: 'deepseek-chat',
    created: 1,
    message: { role: 'assistant', content: '', ...message },
    done: true,
    finish_reason: 'stop',
    usage,
    ...extra,
  });
  const one = (value: LlmClientOutput) => {
    let got: unknown;
    let failed: unknown;
    new Observable<LlmClientOutput>((s) => (s.next(value), s.complete())).pipe(toAnthropicMessage({ model: 'claude-x' })).subscribe({ next: (v) => (got = v), error: (e: unknown) => (failed = e) });
    return { got, failed };
  };

  it('gives thinking, text and tool_use blocks in the stream\'s order, the stop reason and the usage', () => {
    const { got } = one(output({ reasoning_content: 'Hm', content: 'Sure.', tool_calls: [call('call_1', 'f', '{"x":[1]}')] }, { finish_reason: 'tool_calls' }));
    expect(got).toEqual({
      id: 'msg_abc',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [
        { type: 'thinking', thinking: 'Hm', signature: '' },
        { type: 'text', text: 'Sure.' },
        { type: 'tool_use', id: 'call_1', name: 'f', input: { x: [1] } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 20, output_tokens: 7 },
    });
  });

  it('refuses tool arguments that are not a JSON object (malformed_json)', () => {
    for (const args of ['{"x":', '[1]', '"s"']) {
      expect(one(output({ tool_calls: [call('call_1', 'f', args)] })).failed).toEqual(expect.objectContaining({ name: 'StreamProtocolError', code: 'malformed_json' }));
    }
    expect(one(output({ tool_calls: [call('call_1', 'f', '')] })).got).toEqual(expect.objectContaining({ content: [{ type: 'tool_use', id: 'call_1', name: 'f', input: {} }] }));
  });
});

describe('toAnthropicStopReason and toAnthropicUsage', () => {
  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool_calls', 'tool_use'],
    ['function_call', 'tool_use'],
    ['content_filter', 'refusal'],
    ['stop_sequence', 'stop_sequence'],
    [undefined, 'end_turn'],
    ['whatever', 'end_turn'],
  ])('finish_reason %s → stop_reason %s', (finish, stopReason) => {
    expect(toAnthropicStopReason(finish)).toBe(stopReason);
  });

  it.each([
    ['DeepSeek', { prompt_tokens: 100, completion_tokens: 9, prompt_cache_hit_tokens: 64, prompt_cache_miss_tokens: 36 }, 36, 64],
    ['OpenAI', { prompt_tokens: 100, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 40 } }, 60, 40],
    ['Moonshot', { prompt_tokens: 100, completion_tokens: 9, cached_tokens: 16 }, 84, 16],
    ['no cache', { prompt_tokens: 100, completion_tokens: 9 }, 100, 0],
  ])('%s: cache reads are cache_read_input_tokens, the rest input_tokens', (_name, u, input, cached) => {
    expect(toAnthropicUsage(u)).toEqual({ input_tokens: input, cache_creation_input_tokens: 0, cache_read_input_tokens: cached, output_tokens: 9 });
  });

  it('no usage is zeros', () => {
    expect(toAnthropicUsage(undefined)).toEqual({ input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 });
  });
});
