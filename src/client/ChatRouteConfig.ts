import type { ChatRouteEvent } from './ChatRouteEvent.js';
import type { ChatRouteTarget } from './ChatRouteTarget.js';
import type { BreakerStore } from '../store/BreakerStore.js';
import type { CircuitBreakerConfig } from './createCircuitBreaker.js';

/** Options of `createChatRoute`. */
export interface ChatRouteConfig {
  /** The route's name: the model name its clients ask for (default: the first target's model). */
  name?: string;
  /** The primary, then the fallbacks, in order (at least one). */
  targets: readonly ChatRouteTarget[];
  /** Each target's circuit breaker (defaults: `DEFAULT_CIRCUIT_BREAKER`), or `false` for none. */
  breaker?: CircuitBreakerConfig | false;
  /**
   * Shares the breakers with every process using the same store (`createRedisBreakerStore` from `chatflux/redis`): a
   * breaker one process opens is open for all (they read the store every 250 ms), and past its cool-down one probe,
   * claimed through the store, decides for all. Default none: each process's breakers are its own. While the store
   * does not answer, each process's breakers decide alone (told to `onBreakerStoreError`).
   */
  breakerStore?: BreakerStore;
  /**
   * Told when the breaker store stops answering (`failing`: each process's breakers decide alone meanwhile) and when
   * it answers again (`recovered`), once each. Default: a process warning (`CHATFLUX_BREAKER_STORE`).
   */
  onBreakerStoreError?: (event: { state: 'failing' | 'recovered'; error?: unknown }) => void;
  /** A target silent past its `headers` or `firstChunk` deadline hands over to the next (default `true`); `false`: the timeout surfaces. */
  failoverOnSilence?: boolean;
  /** A content-policy rejection moves on to the next target (default `false`: it is the request's fault; its reason reaches the caller). */
  failoverOnContentPolicy?: boolean;
  /**
   * The first-token budget of every target but the last, in ms: its `timeouts.headers` and `timeouts.silence` when
   * its config sets none (default 10 000; the last target keeps the client's defaults). A target that sends nothing
   * — no headers, then no chunk nor keep-alive comment — costs one budget, then the next target answers; one that is
   * queuing and says so with `: keep-alive` comments is waited for until its `firstChunk` deadline.
   */
  silenceMs?: number;
  /**
   * The most upstream requests of one call: its first, retries, fail-overs, continuations and restarts together
   * (default 6). Spent, the failure in hand surfaces (a cut: its own error).
   */
  maxAttempts?: number;
  /**
   * The total deadline of one call, in ms from its start: once spent no retry, fail-over, continuation or restart
   * starts, nor a wait for one (default none, `0`). It bounds a whole answer, long ones included: an answer still
   * streaming when it runs out is not cut, but a cut after it is not continued — which is why it is off by default.
   * An attempt under way keeps its own deadlines.
   */
  deadlineMs?: number;
  /**
   * The deadline of each stretch of recovery, in ms from the call's start and again from each cut (default
   * `DEFAULT_TIMEOUTS.deadline`, 60 000; `0`: none): once spent no retry, fail-over, continuation or restart starts,
   * nor a wait for one. A long answer cut late still gets its continuation; a call that never gets going is given up.
   * With the defaults, a call spends at most `maxAttempts` requests and starts none more than 60 s after its start or
   * its latest cut.
   */
  cutDeadlineMs?: number;
  /** The most continuations of one cut answer (default 3; `0`: a cut surfaces as the error it is). */
  maxContinuations?: number;
  /** The deadline of a whole `json()` call, fail-overs and continuations included (default none). */
  jsonTimeoutMs?: number;
  /** The most a `json()` answer may hold (default `DEFAULT_MAX_ANSWER_CHARS`). */
  maxAnswerChars?: number;
  /** Told of every attempt and breaker transition (for metrics: count them by `outcome`, `to`). */
  onEvent?: (event: ChatRouteEvent) => void;
}
