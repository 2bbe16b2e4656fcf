import { defer, from, map, Observable, switchMap } from 'rxjs';
import { addUsage } from '../core/addUsage.js';
import { ConfigError } from '../core/errors.js';
import { durationMs } from '../core/durationMs.js';
import { createCallGate } from './createCallGate.js';
import type { ChatCompletionChunk, LlmClientOutput, LlmClientOutputChunk } from '../core/schemas/index.js';
import { serverSentEvent } from '../core/serverSentEvent.js';
import { chunkTimeouts } from '../operators/chunkTimeouts.js';
import { DEFAULT_MAX_ANSWER_CHARS } from '../operators/defaultMaxAnswerChars.js';
import { toOutput } from '../operators/toOutput.js';
import { toOutputChunks } from '../operators/toOutputChunks.js';
import type { ChatRoute } from './ChatRoute.js';
import type { ChatRouteConfig } from './ChatRouteConfig.js';
import type { ChatCallOptions, ChatClientRequest } from './createChatClient.js';
import { createRouteBudget } from './createRouteBudget.js';
import { newRouteCall } from './newRouteCall.js';
import { DEFAULT_TIMEOUTS } from '../source/defaultTimeouts.js';
import { resolveRouteTargets } from './resolveRouteTargets.js';
import type { RouteCall } from './RouteCall.js';
import type { RouteContext } from './RouteContext.js';
import { restartChunk } from './restartChunk.js';
import { restartEvent } from './restartEvent.js';
import { restartRoute } from './restartRoute.js';
import { shareRouteBreakers } from './shareRouteBreakers.js';

// The route's public types live in files of their own (what the route's parts import); this module, the route's
// entry, offers them too.
export type { ChatRoute } from './ChatRoute.js';
export type { ChatRouteConfig } from './ChatRouteConfig.js';
export type { ChatRouteAttemptEvent, ChatRouteBreakerEvent, ChatRouteEvent } from './ChatRouteEvent.js';
export type { ChatRouteTarget } from './ChatRouteTarget.js';

/** The most upstream requests of one call of a route by default (`ChatRouteConfig.maxAttempts`). */
const DEFAULT_MAX_ATTEMPTS = 6;

/**
 * Creates a route: one {@link ChatClient} in front of a primary target and its ordered fallbacks, that never hands a
 * truncated answer over as complete.
 *
 * 1. **Failover**: a target that fails before its first chunk — a failure `retryOnTransient` calls transient, after
 *    that target's own retries (`retry` of its config); a refused key, quota or balance; a silent target past its
 *    `headers`/`firstChunk` deadline (not retried on it) — hands the request to the next target. A
 *    `context_length_exceeded` goes to the next target with a larger `contextWindow`. A content-policy rejection and
 *    any other 4xx surface as they are (the provider's reason reaches the caller).
 * 2. **Circuit breakers** per target (`breaker`, defaults `DEFAULT_CIRCUIT_BREAKER`): an open breaker's target is skipped; every target open
 *    → `CapacityError('upstream_busy')` with `Retry-After` until the first probe.
 * 3. **Continuation** (`continueAfterCut`): an answer cut mid-stream (reset, idle timeout, in-band error, EOF before
 *    its end, a malformed event, `insufficient_system_resource`) is continued by the next targets that accept a
 *    prefill, then by the same one: they get the text so far as an assistant prefix and the client sees one answer.
 *    If none can, the cut's own error surfaces (never a continuation's prefill rejection).
 * 4. **Accounting**: the last `stream()` chunk and the `json()` answer carry `model` and `provider` of the target
 *    that finished, `usage` summed over the attempts whose text was delivered (a restart's discarded answer included:
 *    its provider billed it), and `attempts` (each target tried,
 *    with its outcome: `completed`, `cut`, `failed`, `retried`, `skipped`). `chunks()` is the spliced upstream stream
 *    (OpenAI's chunk shape): its usage is summed the same way; each chunk keeps the `model` its target wrote.
 *
 * ## Example
 * ```ts
 * const route = createChatRoute({
 *   name: 'chat',
 *   targets: [
 *     { provider: 'deepseek', model: 'deepseek-chat', retry: 1, timeouts: { firstChunk: 20_000 } },
 *     { provider: 'moonshot', model: 'kimi-k2-0905-preview' },
 *   ],
 *   onEvent: (event) => console.log(event),
 * });
 * const answer = await firstValueFrom(route.json({ messages: [{ role: 'user', content: '你好' }] }));
 * answer.attempts; // [{ target: 'deepseek:deepseek-chat', outcome: 'completed', … }]
 * ```
 *
 * @param config - The targets, the breaker, the rules' switches and an event sink.
 * @returns The route (a `ChatClient`: `chunks`, `json`, `stream`, `sse`, `close`).
 * @throws ConfigError for no target or a bad target configuration (each target's client is created now), or a
 *   target setting `timeouts.json` or `maxAnswerChars` (a route's json() has its own: `jsonTimeoutMs`, `maxAnswerChars`),
 *   or a bad `maxContinuations`, `maxAttempts`, `silenceMs`, `deadlineMs`, `cutDeadlineMs` or `jsonTimeoutMs`.
 */
export function createChatRoute(config: ChatRouteConfig): ChatRoute {
  if (!Array.isArray(config.targets) || config.targets.length === 0) {
    throw new ConfigError('createChatRoute: `targets` must list at least one target, e.g. [{ provider: "deepseek" }].');
  }
  // Checked now, not at every call (maxContinuations), nor left to turn a deadline off (jsonTimeoutMs) or to fail
  // every call with undici's message (silenceMs).
  const { maxContinuations, silenceMs, jsonTimeoutMs, maxAttempts = DEFAULT_MAX_ATTEMPTS } = config;
  if (maxContinuations !== undefined && !(Number.isInteger(maxContinuations) && maxContinuations >= 0)) {
    throw new ConfigError(`createChatRoute: \`maxContinuations\` must be a non-negative integer, got ${String(maxContinuations)}; omit it for 3 (0: a cut surfaces).`);
  }
  if (!(Number.isInteger(maxAttempts) && maxAttempts >= 1)) {
    throw new ConfigError(`createChatRoute: \`maxAttempts\` must be a positive integer, got ${String(maxAttempts)}; omit it for ${DEFAULT_MAX_ATTEMPTS}.`);
  }
  durationMs('createChatRoute: `silenceMs`', silenceMs, 0);
  durationMs('createChatRoute: `jsonTimeoutMs`', jsonTimeoutMs, 0);
  const deadlineMs = durationMs('createChatRoute: `deadlineMs`', config.deadlineMs, 0);
  const cutDeadlineMs = durationMs('createChatRoute: `cutDeadlineMs`', config.cutDeadlineMs, DEFAULT_TIMEOUTS.deadline);
  // A target's json() settings would be silently ignored: a route's json() is its own (over the spliced chunks).
  const jsonSetting = config.targets.find((t) => t.timeouts?.json !== undefined || t.maxAnswerChars !== undefined);
  if (jsonSetting !== undefined) {
    throw new ConfigError(
      `createChatRoute: a target's \`timeouts.json\` and \`maxAnswerChars\` do not apply to a route's json() (target ${JSON.stringify(jsonSetting.name ?? jsonSetting.model ?? jsonSetting.provider ?? 'unnamed')}); set the route's \`jsonTimeoutMs\` and \`maxAnswerChars\` instead.`,
    );
  }
  const routeName = config.name ?? config.targets[0]?.model ?? 'route';
  const emit = config.onEvent ?? (() => undefined);
  const answer = toOutput({ maxAnswerChars: config.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS });
  const sharing = shareRouteBreakers(config);
  const targets = resolveRouteTargets(config, routeName, emit, sharing.failed);
  sharing.start(targets);
  const modelless = targets.find((t) => t.client.model === undefined);
  if (config.name !== undefined && modelless !== undefined) {
    throw new ConfigError(
      `createChatRoute: target "${modelless.name}" has no model (its preset has no default), so it would be sent the route's name "${config.name}"; give it { model: '…' }.`,
    );
  }
  if (config.targets.some((t) => t.contextWindow !== undefined && !(Number.isInteger(t.contextWindow) && t.contextWindow > 0))) {
    throw new ConfigError('createChatRoute: a target\'s `contextWindow` must be a positive integer (tokens), e.g. 131072.');
  }
  const context: RouteContext = { name: routeName, targets };
  const calls = createCallGate('this chat route was closed; create a new one with createChatRoute().');
  // Each subscription is one call: its bookkeeping, and the upstream chunks spliced over the targets (an answer that
  // cannot be continued started again when `restart`, announced by `announce`).
  const call = <T>(
    request: ChatClientRequest,
    options: ChatCallOptions,
    finish: (chunks: Observable<ChatCompletionChunk>, call: RouteCall) => Observable<T>,
    restart = false,
    announce?: (error: unknown) => T,
  ): Observable<T> =>
    calls.track(() => {
      const run = (): Observable<T> => {
        const state = newRouteCall(createRouteBudget({ maxAttempts, deadlineMs, cutDeadlineMs }), options.caller, (attempt) =>
          emit({ type: 'attempt', route: routeName, ...attempt }),
        );
        return restartRoute(context, config, request, options, state, (chunks) => finish(chunks, state), restart, announce);
      };
      // Shared breakers: a half-open one's probe is claimed through the store first (one round trip, only then).
      const probes = sharing.halfOpen();
      return probes.length === 0 ? run() : from(Promise.all(probes.map((breaker) => breaker.prepare()))).pipe(switchMap(run));
    });

  const first = targets[0]!;
  const route: ChatRoute = {
    name: routeName,
    targets: targets.map((t) => t.name),
    provider: first.client.provider,
    baseUrl: first.client.baseUrl,
    model: config.name ?? first.client.model,
    breakerStates: () => Object.fromEntries(targets.map((t) => [t.name, t.breaker?.state ?? 'closed'])),
    chunks: (request, options = {}) =>
      // The final segment's usage, plus the usage of the segments before it whose text was delivered.
      call(request, options, (chunks, state) =>
        chunks.pipe(map((chunk) => (chunk.usage != null && state.usage !== undefined ? { ...chunk, usage: addUsage(state.usage, chunk.usage)! } : chunk))),
      ),
    stream: (request, options = {}) => {
      const restart = options.acceptRestart === true;
      const streamed = call(
        request,
        options,
        (chunks, state) =>
          chunks.pipe(
            toOutputChunks(),
            map((chunk): LlmClientOutputChunk => (chunk.done ? { ...chunk, ...state.accounting() } : chunk)),
          ),
        restart,
        restartChunk,
      );
      // A restarted answer's chunks are numbered on from the restart chunk: one index sequence.
      return restart ? defer(() => streamed.pipe(map((chunk, index) => (chunk.index === index ? chunk : { ...chunk, index })))) : streamed;
    },
    json: (request, options = {}) => {
      const whole = call(
        request,
        options,
        (chunks, state) =>
          chunks.pipe(
            answer,
            map((output): LlmClientOutput => {
              const { usage, ...rest } = state.accounting();
              const { usage: _own, ...withoutUsage } = output;
              return { ...withoutUsage, ...rest, ...(usage === undefined ? {} : { usage }) };
            }),
          ),
        true, // invisibly: nothing reached the caller yet
      );
      return config.jsonTimeoutMs ? whole.pipe(chunkTimeouts<LlmClientOutput>({ total: config.jsonTimeoutMs })) : whole;
    },
    sse: (request, options) =>
      route.stream(request, options).pipe(map((data) => restartEvent(data) ?? serverSentEvent({ data }))),
    close: async (graceMs = 0) => {
      calls.close();
      sharing.stop();
      // The route's calls, not only its targets' requests: a call waiting to retry or fail over has none under way.
      await calls.drain(graceMs);
      await Promise.all(targets.flatMap((t) => [t.client.close(), t.prefillClient?.close()]));
    },
  };
  return route;
}
