import { Observable, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { UpstreamStreamError } from '../../src/core/errors';
import type { LlmClientOutputChunk, Usage } from '../../src/core/schemas';
import { toUiMessageStream } from '../../src/operators/toUiMessageStream';

const usage: Usage = { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37 };
const piece = (message: Partial<LlmClientOutputChunk['message']>, index: number, done = false, extra: Partial<LlmClientOutputChunk> = {}): LlmClientOutputChunk => ({
  message: { role: 'assistant', content: '', ...message },
  done,
  index,
  ...extra,
});
const call = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });
const S = { type: 'start', messageId: 'm1' };
const P = { type: 'start-step' };
const Y = { type: 'finish-step' };

describe('toUiMessageStream', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });
  const config = { messageId: 'm1' };

  it('starts the message and its step, gives reasoning and text in blocks with ids of their own, ends each, and finishes with reason and usage', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('r 9ms R 9ms a 9ms b 9ms (d|)', {
        r: piece({ reasoning_content: 'Hm' }, 0),
        R: piece({ reasoning_content: ', yes' }, 1),
        a: piece({ content: 'Hi' }, 2),
        b: piece({ content: ' there' }, 3),
        d: piece({}, 4, true, { finish_reason: 'stop', usage }),
      });
      expectObservable(source.pipe(toUiMessageStream(config))).toBe('(SPBr) 4ms R 9ms (ETa) 5ms b 9ms (XYF|)', {
        S,
        P,
        B: { type: 'reasoning-start', id: 'reasoning-0' },
        r: { type: 'reasoning-delta', id: 'reasoning-0', delta: 'Hm' },
        R: { type: 'reasoning-delta', id: 'reasoning-0', delta: ', yes' },
        E: { type: 'reasoning-end', id: 'reasoning-0' },
        T: { type: 'text-start', id: 'text-1' },
        a: { type: 'text-delta', id: 'text-1', delta: 'Hi' },
        b: { type: 'text-delta', id: 'text-1', delta: ' there' },
        X: { type: 'text-end', id: 'text-1' },
        Y,
        F: { type: 'finish', messageMetadata: { finish_reason: 'stop', usage } },
      });
    });
  });

  it('gives each complete tool call tool-input-start, its arguments as one tool-input-delta, and tool-input-available with them parsed', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('a 9ms (d|)', {
        a: piece({ content: 'Let me look.' }, 0),
        d: piece({ tool_calls: [call('call_1', 'f', '{"x":1}'), call('call_2', 'g', 'not json')] }, 1, true, { finish_reason: 'tool_calls' }),
      });
      expectObservable(source.pipe(toUiMessageStream(config))).toBe('(SPTa) 4ms (XIDAJKLYF|)', {
        S,
        P,
        T: { type: 'text-start', id: 'text-0' },
        a: { type: 'text-delta', id: 'text-0', delta: 'Let me look.' },
        X: { type: 'text-end', id: 'text-0' },
        I: { type: 'tool-input-start', toolCallId: 'call_1', toolName: 'f' },
        D: { type: 'tool-input-delta', toolCallId: 'call_1', inputTextDelta: '{"x":1}' },
        A: { type: 'tool-input-available', toolCallId: 'call_1', toolName: 'f', input: { x: 1 } },
        J: { type: 'tool-input-start', toolCallId: 'call_2', toolName: 'g' },
        K: { type: 'tool-input-delta', toolCallId: 'call_2', inputTextDelta: 'not json' },
        L: { type: 'tool-input-available', toolCallId: 'call_2', toolName: 'g', input: 'not json' },
        Y,
        F: { type: 'finish', messageMetadata: { finish_reason: 'tool_calls' } },
      });
    });
  });

  it('a text block after a tool call is a new block; a refusal is text', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('t 9ms (d|)', { t: piece({ tool_calls: [call('c', 'f', '{}')] }, 0), d: piece({ refusal: 'No.' }, 1, true) });
      expectObservable(source.pipe(toUiMessageStream(config))).toBe('(SPIDA) 3ms (TaXYF|)', {
        S,
        P,
        I: { type: 'tool-input-start', toolCallId: 'c', toolName: 'f' },
        D: { type: 'tool-input-delta', toolCallId: 'c', inputTextDelta: '{}' },
        A: { type: 'tool-input-available', toolCallId: 'c', toolName: 'f', input: {} },
        T: { type: 'text-start', id: 'text-0' },
        a: { type: 'text-delta', id: 'text-0', delta: 'No.' },
        X: { type: 'text-end', id: 'text-0' },
        Y,
        F: { type: 'finish' },
      });
    });
  });

  it("an empty answer is start, start-step, finish-step and finish; a route's report rides in finish's metadata; no messageId unless configured", () => {
    scheduler.run(({ cold, expectObservable }) => {
      const attempts = [{ target: 't1', provider: 'deepseek', outcome: 'completed' as const }];
      const source = cold('--(d|)', { d: piece({}, 0, true, { finish_reason: 'length', model: 'deepseek-chat', target: 't1', provider: 'deepseek', attempts, usage_estimated: true }) });
      expectObservable(source.pipe(toUiMessageStream())).toBe('--(SPYF|)', {
        S: { type: 'start' },
        P,
        Y,
        F: { type: 'finish', messageMetadata: { finish_reason: 'length', model: 'deepseek-chat', target: 't1', provider: 'deepseek', attempts, usage_estimated: true } },
      });
    });
  });

  it('passes an error through after what was said (no block end, no finish)', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const error = new UpstreamStreamError('cut');
      const source = cold('a 9ms #', { a: piece({ content: 'Hi' }, 0) }, error);
      expectObservable(source.pipe(toUiMessageStream(config))).toBe('(SPTa) 4ms #', { S, P, T: { type: 'text-start', id: 'text-0' }, a: { type: 'text-delta', id: 'text-0', delta: 'Hi' } }, error);
    });
  });

  it('refuses a restart chunk: the UI message stream cannot say it', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('a 9ms r', { a: piece({ content: 'Hi' }, 0), r: piece({}, 1, false, { restart: { code: 'network' } }) });
      expectObservable(source.pipe(toUiMessageStream(config))).toBe('(SPTa) 4ms #', { S, P, T: { type: 'text-start', id: 'text-0' }, a: { type: 'text-delta', id: 'text-0', delta: 'Hi' } }, expect.objectContaining({ name: 'ConfigError' }));
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
    firehose.pipe(toUiMessageStream(config), take(5)).subscribe();
    expect(sent).toBe(2); // start, start-step, text-start, delta from the first; the second's delta is the fifth
  });

  it('does not break unsubscription chains', () => {
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('-a-b-c-', { a: piece({ content: 'a' }, 0), b: piece({ content: 'b' }, 1), c: piece({ content: 'c' }, 2) });
      expectObservable(source.pipe(toUiMessageStream(config)), '^--!').toBe('-(SPTa)-', { S, P, T: { type: 'text-start', id: 'text-0' }, a: { type: 'text-delta', id: 'text-0', delta: 'a' } });
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });
});
