import { defer, finalize, map, type Observable } from 'rxjs';
import { addUsage } from '../core/addUsage.js';
import { CapacityError, ConfigError, isAbortedError } from '../core/errors.js';
import { DEFAULT_RETRY_POLICY } from '../core/retryPolicy.js';
import type {
  ChatCompletionChunk,
  ChatCompletionRequest,
  LlmClientOutput,
  LlmClientOutputChunk,
  RouteAttempt,
  Usage,
} from '../core/schemas/index.js';
import { serverSentEvent } from '../core/serverSentEvent.js';
import { chunkTimeouts } from '../operators/chunkTimeouts.js';
import { continueAfterCut, type ContinuationRequest } from '../operators/continueAfterCut.js';
import { DEFAULT_MAX_ANSWER_CHARS } from '../operators/defaultMaxAnswerChars.js';
import { failover, type FailoverAttempt, type FailoverTarget } from '../operators/failover.js';
import type { RetryOnTransientConfig } from '../operators/retryOnTransient.js';
import { toOutput } from '../operators/toOutput.js';
import { toOutputChunks } from '../operators/toOutputChunks.js';
import { createChatClient, type ChatCallOptions, type ChatClient, type ChatClientConfig, type ChatClientRequest } from './createChatClient.js';
import { createCircuitBreaker, type CircuitBreaker, type CircuitBreakerConfig, type CircuitState } from './createCircuitBreaker.js';
import { describeRouteError } from './describeRouteError.js';
import { isTargetFault } from './isTargetFault.js';
import { nextRouteTarget } from './nextRouteTarget.js';
import { withPrefill, type PrefillDialect } from './withPrefill.js';

/** One target of a route: a client configuration (another key, model or provider) and what it can do. */
export interface ChatRouteTarget extends ChatClientConfig {
  /** The target's name in attempts, events and logs (default `provider:model`, numbered when two are alike). */
  name?: string;
  /**
   * How this target continues a cut answer from its text so far: `deepseek` (an assistant message with
   * `prefix: true`, sent to DeepSeek's beta base URL), `moonshot` (`partial: true`), `assistant` (a trailing
   * assistant message, for servers that accept a prefill), or `false` (it cannot: never asked to continue).
   * Default: `deepseek` for the `deepseek` preset, `moonshot` for `moonshot`/`moonshot-cn`, else `false`.
   */
  prefill?: PrefillDialect | false;
  /** Where a `deepseek` prefill goes (default: the target's `baseUrl` + `/beta`, DeepSeek's `https://api.deepseek.com/beta`). */
  prefillBaseUrl?: string;
  /** The model's context window in tokens: a `context_length_exceeded` moves on to the next target declared larger. */
  contextWindow?: number;
}

/** A route's report of one attempt (the fields of `RouteAttempt`). */
export interface ChatRouteAttemptEvent extends RouteAttempt {
  /** Always `'attempt'`. */
  type: 'attempt';
  /** The route's name. */
  route: string;
}

/** A route's report of a circuit breaker's state change. */
export interface ChatRouteBreakerEvent {
  /** Always `'breaker'`. */
  type: 'breaker';
  /** The route's name. */
  route: string;
  /** The target whose breaker changed. */
  target: string;
  /** The state before. */
  from: CircuitState;
  /** The state now. */
  to: CircuitState;
}

/** What a route reports: each attempt, and each circuit breaker's state change. */
export type ChatRouteEvent = ChatRouteAttemptEvent | ChatRouteBreakerEvent;

/** Options of {@link createChatRoute}. */
export interface ChatRouteConfig {
  /** The route's name: the model name its clients ask for (default: the first target's model). */
  name?: string;
  /** The primary, then the fallbacks, in order (at least one). */
  targets: readonly ChatRouteTarget[];
  /** Each target's circuit breaker (defaults: `DEFAULT_CIRCUIT_BREAKER`), or `false` for none. */
  breaker?: CircuitBreakerConfig | false;
  /** A target silent past its `headers` or `firstChunk` deadline hands over to the next (default `true`); `false`: the timeout surfaces. */
  failoverOnSilence?: boolean;
  /** A content-policy rejection moves on to the next target (default `false`: it is the request's fault; its reason reaches the caller). */
  failoverOnContentPolicy?: boolean;
  /**
   * The silence budget of every target but the last, in ms: its `timeouts.headers` and `timeouts.firstChunk` when
   * its config sets none (default 30 000; the last target keeps the client's defaults, the queue horizon). A silent
   * provider costs one budget, then the next target answers.
   */
  silenceMs?: number;
  /** The most continuations of one cut answer (default 3; `0`: a cut surfaces as the error it is). */
  maxContinuations?: number;
  /** The deadline of a whole `json()` call, fail-overs and continuations included (default none). */
  jsonTimeoutMs?: number;
  /** The most a `json()` answer may hold (default `DEFAULT_MAX_ANSWER_CHARS`). */
  maxAnswerChars?: number;
  /** Told of every attempt and breaker transition (for metrics: count them by `outcome`, `to`). */
  onEvent?: (event: ChatRouteEvent) => void;
}

/** A route: a {@link ChatClient} over ordered targets, with failover, circuit breakers and mid-stream continuation. */
export interface ChatRoute extends ChatClient {
  /** The route's name. */
  readonly name: string;
  /** The targets' names, in order. */
  readonly targets: readonly string[];
  /** Each target's breaker state now (`closed` for every target when breakers are off). */
  breakerStates(): Record<string, CircuitState>;
}

interface Target {
  name: string;
  config: ChatRouteTarget;
  client: ChatClient;
  prefillClient: ChatClient | undefined;
  prefill: PrefillDialect | false;
  retry: RetryOnTransientConfig;
  breaker: CircuitBreaker | undefined;
}

/** The bookkeeping of one call. */
interface CallState {
  attempts: RouteAttempt[];
  /** The target delivering now. */
  active: Target | undefined;
  /** The target whose segment was cut last (where a continuation looks first past). */
  cut: Target | undefined;
  /** Targets let through by their breaker whose outcome is not in yet (released if the caller leaves). */
  pending: Set<Target>;
  usage: Usage | undefined;
  finisher: { target: Target; model: string | undefined } | undefined;
}

/**
 * Creates a route: one {@link ChatClient} in front of a primary target and its ordered fallbacks, that never hands a
 * truncated answer over as complete.
 *
 * 1. **Failover**: a target that fails before its first chunk — a failure `retryOnTransient` calls transient, after
 *    that target's own retries (`retry` of its config); a refused key, quota or balance; a silent target past its
 *    `headers`/`firstChunk` deadline (not retried on it) — hands the request to the next target. A
 *    `context_length_exceeded` goes to the next target with a larger `contextWindow`. A content-policy rejection and
 *    any other 4xx surface as they are (the provider's reason reaches the caller).
 * 2. **Circuit breakers** per target (`createCircuitBreaker`): an open breaker's target is skipped; every target open
 *    → `CapacityError('upstream_busy')` with `Retry-After` until the first probe.
 * 3. **Continuation** (`continueAfterCut`): an answer cut mid-stream (reset, idle timeout, in-band error, EOF before
 *    its end, a malformed event, `insufficient_system_resource`) is continued by the next targets that accept a
 *    prefill, then by the same one: they get the text so far as an assistant prefix and the client sees one answer.
 *    If none can, the cut's own error surfaces (never a continuation's prefill rejection).
 * 4. **Accounting**: the last `stream()` chunk and the `json()` answer carry `model` and `provider` of the target
 *    that finished, `usage` summed over the attempts whose text was delivered, and `attempts` (each target tried,
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
 * @throws ConfigError for no target or a bad target configuration (each target's client is created now).
 */
export function createChatRoute(config: ChatRouteConfig): ChatRoute {
  if (!Array.isArray(config.targets) || config.targets.length === 0) {
    throw new ConfigError('createChatRoute: `targets` must list at least one target, e.g. [{ provider: "deepseek" }].');
  }
  const seen = new Map<string, number>();
  const routeName = config.name ?? config.targets[0]?.model ?? 'route';
  const emit = config.onEvent ?? (() => undefined);
  const answer = toOutput({ maxAnswerChars: config.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS });
  const maxContinuations = config.maxContinuations ?? 3;
  const silenceMs = config.silenceMs ?? 30_000;
  const last = config.targets.length - 1;
  const targets: Target[] = config.targets.map((given, position) => {
    const target: ChatRouteTarget =
      position === last
        ? given
        : { ...given, timeouts: { headers: silenceMs, firstChunk: silenceMs, ...given.timeouts } };
    const retry: RetryOnTransientConfig =
      target.retry === false ? { count: 0 } : typeof target.retry === 'number' ? { count: target.retry } : (target.retry ?? {});
    const client = createChatClient({ ...target, retry: false });
    const base = target.name ?? `${client.provider}:${client.model ?? 'default'}`;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    const name = count === 1 ? base : `${base}#${count}`;
    const prefill =
      target.prefill ?? (client.provider === 'deepseek' ? 'deepseek' : client.provider.startsWith('moonshot') ? 'moonshot' : false);
    const breaker =
      config.breaker === false
        ? undefined
        : createCircuitBreaker(config.breaker ?? {}, ({ from, to }) => emit({ type: 'breaker', route: routeName, target: name, from, to }));
    return { name, config: target, client, prefillClient: undefined, prefill, retry, breaker };
  });
  const modelless = targets.find((t) => t.client.model === undefined);
  if (config.name !== undefined && modelless !== undefined) {
    throw new ConfigError(
      `createChatRoute: target "${modelless.name}" has no model (its preset has no default), so it would be sent the route's name "${config.name}"; give it { model: '…' }.`,
    );
  }
  if (config.targets.some((t) => t.contextWindow !== undefined && !(Number.isInteger(t.contextWindow) && t.contextWindow > 0))) {
    throw new ConfigError('createChatRoute: a target\'s `contextWindow` must be a positive integer (tokens), e.g. 131072.');
  }

  const clientOf = (target: Target, dialect: PrefillDialect | undefined): ChatClient => {
    if (dialect !== 'deepseek') return target.client;
    target.prefillClient ??= createChatClient({
      ...target.config,
      retry: false,
      baseUrl: target.config.prefillBaseUrl ?? `${target.client.baseUrl.replace(/\/+$/, '')}/beta`,
    });
    return target.prefillClient;
  };
  const record = (call: CallState, attempt: RouteAttempt): void => {
    call.attempts.push(attempt);
    emit({ type: 'attempt', route: routeName, ...attempt });
  };
  const attemptOf = (target: Target, outcome: RouteAttempt['outcome'], error?: unknown): RouteAttempt => ({
    target: target.name,
    provider: target.client.provider,
    ...(target.client.model === undefined ? {} : { model: target.client.model }),
    outcome,
    ...(error === undefined ? {} : describeRouteError(error)),
  });
  const settle = (call: CallState, target: Target, error: unknown): void => {
    call.pending.delete(target);
    if (isTargetFault(error)) target.breaker?.failure();
    else target.breaker?.release();
  };

  /** A failover over `order` (indexes into targets), each sending `bodyFor(target)`. */
  const attemptsOver = (
    call: CallState,
    order: readonly number[],
    bodyFor: (target: Target) => { body: ChatClientRequest; dialect: PrefillDialect | undefined },
    next: (error: unknown, index: number) => number | undefined,
    options: ChatCallOptions,
  ): Observable<ChatCompletionChunk> => {
    const list: FailoverTarget<ChatCompletionChunk>[] = order.map((i) => {
      const target = targets[i]!;
      return {
        name: target.name,
        source: () => {
          const { body, dialect } = bodyFor(target);
          return clientOf(target, dialect).chunks(body, options);
        },
        retry: {
          ...target.retry,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          onRetry: (event) => {
            target.retry.onRetry?.(event);
            record(call, attemptOf(target, 'retried', event.error));
          },
        },
      };
    });
    return failover(list, {
      next,
      skip: (position) => {
        const target = targets[order[position]!]!;
        if (target.breaker?.tryAcquire() === false) return true;
        call.pending.add(target);
        return false;
      },
      noTarget: () => allOpen(),
      onAttempt: (attempt: FailoverAttempt) => {
        const target = targets[order[attempt.index]!]!;
        if (attempt.outcome === 'ok') call.active = target;
        else if (attempt.outcome === 'skipped') record(call, attemptOf(target, 'skipped'));
        else {
          settle(call, target, attempt.error);
          record(call, attemptOf(target, 'failed', attempt.error));
        }
      },
    });
  };
  const allOpen = (): CapacityError => {
    const now = Date.now();
    const at = Math.min(...targets.map((t) => t.breaker?.retryAt ?? now));
    return new CapacityError(
      'upstream_busy',
      `every target of route "${routeName}" is unavailable (circuit breakers open); retry later`,
      { retryAfterSeconds: Math.max(1, Math.ceil((at - now) / 1000)) },
    );
  };

  const spliced = (request: ChatClientRequest, options: ChatCallOptions, call: CallState): Observable<ChatCompletionChunk> =>
    defer(() => {
      const plain = (target: Target): ChatClientRequest =>
        target.client.model === undefined ? request : ({ ...request, model: target.client.model } as ChatClientRequest);
      const all = targets.map((_, i) => i);
      const first = attemptsOver(
        call,
        all,
        (target) => ({ body: plain(target), dialect: undefined }),
        (error, index) =>
          nextRouteTarget(error, index, targets.map((t) => t.config.contextWindow), {
            silence: config.failoverOnSilence ?? true,
            contentPolicy: config.failoverOnContentPolicy ?? false,
          }),
        options,
      );
      const continueWith = ({ content, reasoning }: ContinuationRequest): Observable<ChatCompletionChunk> | undefined => {
        const cut = call.cut === undefined ? 0 : targets.indexOf(call.cut);
        const fresh = content === '' && reasoning === ''; // nothing reached the caller: any target can start over
        // The next targets first (the one that cut is suspect), then the same one, then the earlier ones.
        const order = [...all.slice(cut + 1), cut, ...all.slice(0, cut)].filter((i) => fresh || targets[i]!.prefill !== false);
        if (order.length === 0) return undefined;
        return attemptsOver(
          call,
          order,
          (target) =>
            fresh
              ? { body: plain(target), dialect: undefined }
              : {
                  body: withPrefill(plain(target) as ChatCompletionRequest, content, reasoning, target.prefill as PrefillDialect),
                  dialect: target.prefill as PrefillDialect,
                },
          (error, position) => (isAbortedError(error) ? undefined : position + 1),
          options,
        );
      };
      return first.pipe(
        continueAfterCut({
          continueWith,
          maxContinuations,
          failedFinishReasons: DEFAULT_RETRY_POLICY.finishReasons,
          onSegment: (segment) => {
            const target = call.active;
            if (segment.outcome === 'failed' || target === undefined) return;
            if (segment.delivered) call.usage = addUsage(call.usage, segment.usage);
            if (segment.outcome === 'complete') {
              call.pending.delete(target);
              target.breaker?.success();
              call.finisher = { target, model: segment.model };
              record(call, attemptOf(target, 'completed'));
            } else {
              call.cut = target;
              settle(call, target, segment.error);
              record(call, attemptOf(target, 'cut', segment.error));
            }
            call.active = undefined;
          },
        }),
        finalize(() => {
          // The caller left (or the answer ended) with outcomes not in: neither a success nor a failure.
          for (const target of call.pending) target.breaker?.release();
          call.pending.clear();
          call.active = undefined;
        }),
      );
    });

  const newCall = (): CallState => ({ attempts: [], active: undefined, cut: undefined, pending: new Set(), usage: undefined, finisher: undefined });
  const accounting = (call: CallState): { model?: string; provider?: string; usage?: Usage; attempts: RouteAttempt[] } => {
    const finisher = call.finisher;
    const model = finisher?.model ?? finisher?.target.client.model;
    return {
      ...(model === undefined ? {} : { model }),
      ...(finisher === undefined ? {} : { provider: finisher.target.client.provider }),
      ...(call.usage === undefined ? {} : { usage: call.usage }),
      attempts: call.attempts,
    };
  };

  let closed = false;
  const first = targets[0]!;
  const route: ChatRoute = {
    name: routeName,
    targets: targets.map((t) => t.name),
    provider: first.client.provider,
    baseUrl: first.client.baseUrl,
    model: config.name ?? first.client.model,
    breakerStates: () => Object.fromEntries(targets.map((t) => [t.name, t.breaker?.state ?? 'closed'])),
    chunks: (request, options = {}) =>
      defer(() => {
        const call = newCall();
        // The final segment's usage, plus the usage of the segments before it whose text was delivered.
        return spliced(request, options, call).pipe(
          map((chunk) => (chunk.usage != null && call.usage !== undefined ? { ...chunk, usage: addUsage(call.usage, chunk.usage)! } : chunk)),
        );
      }),
    stream: (request, options = {}) =>
      defer(() => {
        if (closed) throw new ConfigError('this chat route was closed; create a new one with createChatRoute().');
        const call = newCall();
        return spliced(request, options, call).pipe(
          toOutputChunks(),
          map((chunk): LlmClientOutputChunk => (chunk.done ? { ...chunk, ...accounting(call) } : chunk)),
        );
      }),
    json: (request, options = {}) => {
      const whole = defer(() => {
        if (closed) throw new ConfigError('this chat route was closed; create a new one with createChatRoute().');
        const call = newCall();
        return spliced(request, options, call).pipe(
          answer,
          map((output): LlmClientOutput => {
            const { usage, ...rest } = accounting(call);
            const { usage: _own, ...withoutUsage } = output;
            return { ...withoutUsage, ...rest, ...(usage === undefined ? {} : { usage }) };
          }),
        );
      });
      return config.jsonTimeoutMs ? whole.pipe(chunkTimeouts<LlmClientOutput>({ total: config.jsonTimeoutMs })) : whole;
    },
    sse: (request, options) => route.stream(request, options).pipe(map((data) => serverSentEvent({ data }))),
    close: async (graceMs) => {
      closed = true;
      await Promise.all(targets.flatMap((t) => [t.client.close(graceMs), t.prefillClient?.close(graceMs)]));
    },
  };
  return route;
}
