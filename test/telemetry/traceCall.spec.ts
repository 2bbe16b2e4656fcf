import { TestScheduler } from 'rxjs/testing';
import { CHUNK_VALUES, recordingCall } from '../helpers/recordingCall';
import type { ChatCompletionChunk } from '../../src/core/schemas/index';
import type { CompletionCall } from '../../src/telemetry/CompletionCall';
import type { CompletionTelemetry } from '../../src/telemetry/CompletionTelemetry';
import { traceCall } from '../../src/telemetry/traceCall';

const values = CHUNK_VALUES;
const scheduler = (): TestScheduler => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('traceCall (marbles)', () => {
  const traced = (s: TestScheduler, source: Parameters<typeof traceCall<ChatCompletionChunk>>[2]) => {
    const call = recordingCall(() => s.now());
    const telemetry: CompletionTelemetry = { start: () => call };
    return { call, run: () => traceCall(telemetry, () => ({ providerName: 'openai' }), source) };
  };

  it('ends the call once: completed, failed with its error, or aborted when the subscriber leaves first', () => {
    const s = scheduler();
    const done = traced(s, () => s.createColdObservable('--a--b--|', values));
    const failed = traced(s, () => s.createColdObservable('--a--#', values, 'boom'));
    const left = traced(s, () => s.createColdObservable('--a--b--', values));
    s.run(({ expectObservable }) => {
      expectObservable(done.run()).toBe('--a--b--|', values);
      expectObservable(failed.run()).toBe('--a--#', values, 'boom');
      expectObservable(left.run(), '^------!').toBe('--a--b--', values);
    });
    expect(done.call.log).toEqual(['8 end ok']);
    expect(failed.call.log).toEqual(['5 end boom']);
    expect(left.call.log).toEqual(['7 end aborted']);
  });

  it('hands the call to run, and runs it plain when telemetry records nothing', () => {
    const s = scheduler();
    const seen: (CompletionCall | undefined)[] = [];
    s.run(({ cold, expectObservable }) => {
      const run = (call: CompletionCall | undefined) => (seen.push(call), cold('-a|', values));
      expectObservable(traceCall({ start: () => undefined }, () => ({ providerName: 'openai' }), run)).toBe('-a|', values);
      expectObservable(traceCall(undefined, () => ({ providerName: 'openai' }), run)).toBe('-a|', values);
    });
    expect(seen).toEqual([undefined, undefined]);
  });
});
