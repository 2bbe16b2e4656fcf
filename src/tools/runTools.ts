import { catchError, concat, defer, EMPTY, first, last, map, merge, mergeMap, Observable, of, Subject, throwError, type Subscriber } from 'rxjs';
import type { ChatClient, ChatClientRequest } from '../client/createChatClient.js';
import { addUsage } from '../core/addUsage.js';
import { AbortedError, isToolCallError, ToolExecutionError } from '../core/errors.js';
import type { ChatMessage, ToolResultFrame } from '../core/schemas/contract.js';
import type { ToolCall, Usage } from '../core/schemas/upstream.js';
import { parseToolArguments } from '../operators/parseToolArguments.js';
import { createInOrderRelease } from './createInOrderRelease.js';
import { createToolStep, type ToolStepEnd } from './createToolStep.js';
import { fromToolValue } from './fromToolValue.js';
import { resolveRunToolsConfig, type RunToolsSettings } from './resolveRunToolsConfig.js';
import type { RunToolsConfig } from './RunToolsConfig.js';
import type { ToolContext } from './RunnableTool.js';
import type {
  ToolLoopCall,
  ToolLoopEvent,
  ToolLoopStep,
  ToolLoopStopReason,
  ToolLoopToolResultEvent,
} from './ToolLoopEvent.js';
import { toolResultContent } from './toolResultContent.js';

/**
 * Runs the tool loop: asks the model, runs the tools it calls, sends their results back, and asks again — until it
 * answers without a tool, or a stop rule ends the loop. Every step's events come out as they happen.
 *
 * `openai-node`'s `runTools` and the AI SDK's `streamText({ tools, stopWhen })`, as one cold Observable.
 *
 * ```text
 * step 0 chunks:  --r-a-b-c|
 *   r = reasoning, a = get_weather starts, b = its last fragment, c = finish_reason 'tool_calls'
 * get_weather:            ---x|          (subscribed at c, when its call is complete; x = its result)
 * step 1 chunks:              -----d-e|  (asked at x's completion; d, e = text, e with finish_reason 'stop')
 * runTools(client, request, { tools })
 * result:         S-R-D-D-C---(TFS)t-t(E|)
 *   S = step-start, R = reasoning, D = tool-call-delta, C = tool-call, T = tool-result, F = step-finish, t = text,
 *   E = finish (output, messages, stopReason 'answer')
 * ```
 *
 * 1. Each step sends the request with the conversation so far (`tools`: the request's own, else the tools'
 *    definitions) through `client.chunks` and follows choice 0: `reasoning` and `text` pieces and the raw
 *    `tool-call-delta` fragments as they stream. Calls are assembled as `assembleToolCalls` does (by `id`, so parallel
 *    calls reusing an `index` stay apart).
 * 2. Each call, as soon as it is complete (the model may still be writing the next), is checked: an unknown tool, or
 *    arguments that are not JSON or fail the tool's schema (`parseToolArguments`, the validation `assembleToolCalls`
 *    uses), get a `tool` message telling the model what was wrong — not an exception, and the model may correct
 *    itself in the next step. A valid call (`tool-call`) is offered to `approve` (a refusal is told to the model),
 *    then run. At most `parallel` calls at once; their `tool-result`s come in the order the model made the calls.
 * 3. The conversation grows by the assistant turn — its `tool_calls`, ids verbatim, and its `reasoning_content`, which
 *    DeepSeek's thinking mode refuses a turn without (HTTP 400) — and one `tool` message per call, with its
 *    `tool_call_id`. Then `step-finish`.
 * 4. The loop ends (`finish`, last) when the model answers without tools (`answer`), a tool with `endsLoop` ran
 *    (`tool`), `stopWhen` says so (`stop_when`), or `maxSteps` requests were made (`max_steps`, default 20).
 * 5. A tool that throws ends the loop with a `ToolExecutionError` naming the tool and the call (the request in flight
 *    and the other calls are cancelled, their signals aborted); with `toolErrors: 'report'` the model is told instead.
 *    An error of the model's request (`UpstreamHttpError`, …) ends the loop as it is, cancelling the running tools.
 * 6. Unsubscribing aborts the request in flight and the `signal` of every running tool; `callOptions.signal` does the
 *    same and ends the loop with an `AbortedError`. Each subscription is a loop of its own.
 *
 * ## Example
 * ```ts
 * const getWeather = defineTool({
 *   description: 'The current weather in a city',
 *   schema: z.object({ city: z.string() }),
 *   execute: async ({ city }) => ({ city, celsius: 21 }),
 * });
 * runTools(client, { messages: [{ role: 'user', content: 'Weather in Paris?' }] }, { tools: { get_weather: getWeather } })
 *   .pipe(toToolLoopOutput())
 *   .subscribe((answer) => console.log(answer.message.content));
 * ```
 *
 * @param client - A chat client (`createChatClient`, `createChatRoute`): its `chunks` is called once per step.
 * @param request - The first request: `messages`, and any options (`model`, `thinking`, `tool_choice`, …), kept on every step.
 * @param config - The tools, the stop rules, the approval hook, the parallel limit.
 * @returns A cold Observable of {@link ToolLoopEvent}s, ended by one `finish`.
 * @throws ConfigError at once for a wrong call (see `resolveRunToolsConfig`), saying how to fix it.
 */
export function runTools(
  client: Pick<ChatClient, 'chunks'>,
  request: ChatClientRequest,
  config: RunToolsConfig,
): Observable<ToolLoopEvent> {
  const settings = resolveRunToolsConfig(client, request, config);
  const loop = defer(() => runLoop(client, request, settings));
  const signal = config.callOptions?.signal;
  if (signal === undefined) return loop;
  return new Observable<ToolLoopEvent>((subscriber) => {
    const abort = (): void => subscriber.error(new AbortedError('the tool loop was aborted by its signal', { cause: signal.reason }));
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    subscriber.add(() => signal.removeEventListener('abort', abort));
    subscriber.add(loop.subscribe(subscriber));
    return undefined;
  });
}

/** One subscription's loop: its conversation, its usage, its steps. */
function runLoop(client: Pick<ChatClient, 'chunks'>, request: ChatClientRequest, settings: RunToolsSettings): Observable<ToolLoopEvent> {
  const { config, definitions, maxSteps } = settings;
  const messages: ChatMessage[] = [...request.messages];
  const body = { ...request, tools: [...definitions] };
  let usage: Usage | undefined;

  const finish = (stopReason: ToolLoopStopReason, end: ToolStepEnd, steps: number): ToolLoopEvent => {
    const output = { ...end.output };
    if (usage !== undefined) output.usage = usage;
    else delete output.usage;
    return { type: 'finish', stopReason, output, messages: [...messages], steps };
  };

  const runStep = (step: number): Observable<ToolLoopEvent> =>
    defer(() => {
      const state = createToolStep(step);
      const asked = [...messages];
      const found = new Subject<ToolCall>();
      const handOut = (calls: readonly ToolCall[]): Observable<never> =>
        defer(() => {
          calls.forEach((call) => found.next(call));
          return EMPTY;
        });
      let end: ToolStepEnd | undefined;
      // The model's answer; each call, once complete (after the events of its chunk), goes to `found` at once: it may
      // run while the model writes the next.
      const answer = concat(
        client.chunks({ ...body, messages: asked }, config.callOptions).pipe(
          mergeMap((chunk) => {
            const events = state.push(chunk);
            const calls = state.takeCalls();
            return calls.length === 0 ? events : concat(events, handOut(calls));
          }),
        ),
        defer(() => {
          end = state.finish();
          return concat(handOut(state.takeCalls()), defer(() => (found.complete(), EMPTY)));
        }),
      );
      const results: ToolLoopToolResultEvent[] = [];
      return concat(
        of<ToolLoopEvent>({ type: 'step-start', step }),
        // The calls first, so that they listen before the answer hands any out; an error of either ends both.
        merge(answerCalls(settings, step, found, asked, (result) => results.push(result)), answer),
        defer(() => afterStep(step, end!, results)),
      );
    });

  const afterStep = (step: number, end: ToolStepEnd, results: readonly ToolLoopToolResultEvent[]): Observable<ToolLoopEvent> => {
    usage = addUsage(usage, end.usage);
    messages.push(end.message);
    if (end.calls.length === 0) return of(finish('answer', end, step + 1));
    const toolMessages = results.map((r): ChatMessage => ({ role: 'tool', tool_call_id: r.call.id, content: r.content }));
    messages.push(...toolMessages);
    const done: ToolLoopStep = {
      step,
      finishReason: end.finishReason,
      usage: end.usage,
      message: end.message,
      toolCalls: results.map((r) => r.call),
      toolMessages,
    };
    const stop: ToolLoopStopReason | undefined = results.some((r) => r.outcome === 'ok' && settings.tools[r.call.name]?.endsLoop === true)
      ? 'tool'
      : config.stopWhen?.(done) === true
        ? 'stop_when'
        : step + 1 >= maxSteps
          ? 'max_steps'
          : undefined;
    return concat(of<ToolLoopEvent>({ type: 'step-finish', ...done }), stop === undefined ? runStep(step + 1) : of(finish(stop, end, step + 1)));
  };

  return runStep(0);
}

/**
 * Answers a step's calls: each checked, approved and run, at most `parallel` at once; `tool-call` events as calls are
 * found valid, `tool-result` events in the order of the calls (each also handed to `collect`).
 */
function answerCalls(
  settings: RunToolsSettings,
  step: number,
  calls: Observable<ToolCall>,
  messages: readonly ChatMessage[],
  collect: (result: ToolLoopToolResultEvent) => void,
): Observable<ToolLoopEvent> {
  const inOrder = createInOrderRelease<ToolLoopToolResultEvent>();
  return calls.pipe(
    mergeMap(
      (call, at) =>
        answerCall(settings, step, call, messages).pipe(
          mergeMap((event): readonly ToolLoopEvent[] => {
            if (event.type !== 'tool-result') return [event];
            const released = inOrder.put(at, event);
            released.forEach(collect);
            return released;
          }),
        ),
      settings.parallel,
    ),
  );
}

/** One call: `tool-call` when valid, then exactly one `tool-result` (or the loop's error). */
function answerCall(settings: RunToolsSettings, step: number, toolCall: ToolCall, messages: readonly ChatMessage[]): Observable<ToolLoopEvent> {
  const { tools, config } = settings;
  const name = toolCall.function.name;
  const base: ToolLoopCall = { step, id: toolCall.id, name, arguments: toolCall.function.arguments };
  const answer = (call: ToolLoopCall, outcome: ToolResultFrame['outcome'], content: string, extra: { result?: unknown; error?: unknown } = {}): ToolLoopToolResultEvent => ({
    type: 'tool-result',
    step,
    call,
    outcome,
    content,
    ...extra,
  });
  return defer(() => {
    const tool = Object.hasOwn(tools, name) ? tools[name] : undefined;
    if (tool === undefined) {
      const known = Object.keys(tools).join(', ') || 'none';
      return of(answer(base, 'unknown_tool', `Error: there is no tool "${name}". The tools are: ${known}.`));
    }
    const input = fromToolValue(() => {
      const parsed = parseToolArguments(name, toolCall.id, toolCall.function.arguments, tool.schema);
      return 'pending' in parsed ? parsed.pending : parsed.value;
    });
    return input.pipe(
      map((value) => ({ valid: true as const, value })),
      catchError((error: unknown) => (isToolCallError(error) ? of({ valid: false as const, error }) : throwError(() => error))),
      mergeMap((checked) => {
        if (!checked.valid) {
          return of(answer(base, 'invalid_arguments', `Error: ${checked.error.message}. Call "${name}" again with arguments that match its parameters.`, { error: checked.error }));
        }
        const call: ToolLoopCall = { ...base, input: checked.value };
        const approval = config.approve === undefined ? of<boolean | string>(true) : fromToolValue(() => config.approve!(call)).pipe(first(null, false as boolean | string));
        return concat(
          of<ToolLoopEvent>({ type: 'tool-call', step, call }),
          approval.pipe(
            mergeMap((verdict) => {
              if (verdict !== true) {
                const reason = typeof verdict === 'string' && verdict !== '' ? `: ${verdict}` : '.';
                return of(answer(call, 'refused', `The call to "${name}" was refused${reason}`));
              }
              return execute(call, tool.execute.bind(tool), messages).pipe(
                map((result) => answer(call, 'ok', toolResultContent(result), { result })),
                catchError((error: unknown) => {
                  if (settings.toolErrors === 'report') {
                    const reason = error instanceof Error ? error.message : String(error);
                    return of(answer(call, 'failed', `Error: the tool "${name}" failed: ${reason}`, { error }));
                  }
                  return throwError(() => new ToolExecutionError(name, call.id, { cause: error }));
                }),
              );
            }),
          ),
        );
      }),
    );
  });
}

/**
 * Runs a tool with its own `AbortController`: its last value (none: `undefined`). Unsubscribed before it settled —
 * the loop was unsubscribed or another call failed — its signal is aborted.
 */
function execute(
  call: ToolLoopCall,
  run: (args: unknown, context: ToolContext) => unknown,
  messages: readonly ChatMessage[],
): Observable<unknown> {
  return new Observable<unknown>((subscriber: Subscriber<unknown>) => {
    const controller = new AbortController();
    let settled = false;
    const context: ToolContext = { signal: controller.signal, toolCallId: call.id, step: call.step, messages };
    const inner = fromToolValue(() => run(call.input, context) as unknown)
      .pipe(last(null, undefined as unknown))
      .subscribe({
        next: (value) => subscriber.next(value),
        error: (error: unknown) => {
          settled = true;
          subscriber.error(error);
        },
        complete: () => {
          settled = true;
          subscriber.complete();
        },
      });
    return () => {
      inner.unsubscribe();
      if (!settled) controller.abort(new AbortedError(`the tool loop no longer waits for "${call.name}" (call "${call.id}")`));
    };
  });
}
