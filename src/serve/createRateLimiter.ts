import { randomUUID } from 'node:crypto';
import { CapacityError, ConfigError } from '../core/errors.js';
import type { ChatRequest, Usage } from '../core/schemas/index.js';
import { createMemoryRateLimitStore } from '../store/createMemoryRateLimitStore.js';
import type { RateLimitDecision, RateLimitRule, RateLimitStore } from '../store/RateLimitStore.js';
import { countMessageTokens } from './countMessageTokens.js';
import type { RateLimitsConfig, RateLimitStoreFailurePolicy } from './RateLimitsConfig.js';
import { RATE_LIMIT_DEFAULTS } from './RATE_LIMIT_DEFAULTS.js';
import { rateLimitHeaders } from './rateLimitHeaders.js';

/** A request admitted by {@link createRateLimiter}: its headers, and the release of its place. */
export interface RateLimitAdmitted {
  /** The rate-limit headers to send (`x-ratelimit-*-requests`, `-tokens`, `RateLimit-Policy`, `RateLimit`). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Under token limits: counts what the answer emitted (`pieces` written: each about one token) and the usage it
   * reported (if any), for the settlement at `release`.
   */
  readonly observe?: (pieces: number, usage: Usage | undefined) => void;
  /**
   * Under token limits: told when the upstream is asked (`'asked'`: the prompt is then charged, at its estimate, even
   * when the client goes away before the first byte) and when the answer fails (`'failed'`: an upstream that refused or
   * was unreachable — with nothing emitted, nothing is charged).
   */
  readonly upstream?: (state: 'asked' | 'failed') => void;
  /** Frees the request's place and settles its tokens (call once its response has ended; later calls do nothing). */
  release(): void;
}

/** The serving core's admission under `limits`: see {@link createRateLimiter}. */
export interface RateLimiter {
  /**
   * Admits one request of `client`, or refuses it.
   *
   * @param client - The request's client key.
   * @param setHeader - Where the refusal's headers go (the 429's rate-limit fields and `retry-after-ms`).
   * @throws CapacityError `rate_limit_exceeded` (429) over a limit; `limits_unavailable` (503) when the store cannot
   *   decide under the `'closed'` policy.
   */
  admit(client: string, setHeader?: (name: string, value: string) => void, request?: ChatRequest): Promise<RateLimitAdmitted>;
  /**
   * Whether a limit weighs tokens (`tokensPerMinute`, `perModel`, a budget, anywhere): the serving core then admits
   * once the request is read (its estimate needs the prompt and `max_tokens`).
   */
  readonly weighs: boolean;
}

const POLICIES: readonly RateLimitStoreFailurePolicy[] = ['local', 'open', 'closed'];
const isCount = (value: unknown): boolean => value === undefined || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1);

const RULE_FIELDS = ['requestsPerMinute', 'maxConcurrent', 'tokensPerMinute', 'tokensPerDay', 'tokensPerMonth'] as const;
const checkRule = (rule: RateLimitRule, where: string): void => {
  if (RULE_FIELDS.some((field) => !isCount(rule[field]))) {
    throw new ConfigError(`limits${where}: ${RULE_FIELDS.map((field) => `\`${field}\``).join(', ')} must be whole numbers ≥ 1 (leave one out for no limit).`);
  }
};
const weighsRule = (rule: RateLimitRule): boolean =>
  rule.tokensPerMinute !== undefined || rule.modelTokensPerMinute !== undefined || rule.tokensPerDay !== undefined || rule.tokensPerMonth !== undefined;
const isWeight = (value: unknown): boolean => value === undefined || (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1000);
const number = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);

/**
 * The per-key limits of the serving core (`ServingOptionsSchema`'s `limits`): each admission is one decision of the
 * store (`RateLimitStore.admit`), whose answer becomes the response's rate-limit headers; a held place is renewed
 * while the response runs and freed at its end. When the store cannot decide, the failure policy applies
 * (`onStoreFailure`: `'local'` — this process's share of each limit, in memory; `'open'`; `'closed'` — 503), and the
 * outage is told (`onStoreError`), never silent; the store is asked again at the next admission, so shared limiting
 * resumes as soon as it answers.
 *
 * Under token limits (`tokensPerMinute`, `perModel`, `tokensPerDay`, `tokensPerMonth`) an admission reserves the
 * request's weighted estimate — the prompt's (`countMessageTokens`: ~4 characters per token of Latin text, one per
 * other character) plus `min(max_tokens, reserveOutputTokens)` — and the release settles it (`RateLimitStore.settle`,
 * one round trip) with the usage the answer reported, else (a cancelled or cut answer) the prompt's estimate plus one
 * token per piece emitted, flagged `estimated` (`onSettle`). A spent budget is 429 `insufficient_quota` with
 * `x-should-retry: false` and no `Retry-After`.
 *
 * @param config - The limits, the store and the failure policy.
 * @returns The limiter.
 * @throws ConfigError for a limit that is not a whole number ≥ 1, an unknown policy, or a TTL under 100 ms.
 */
export function createRateLimiter(config: RateLimitsConfig): RateLimiter {
  checkRule(config, '');
  for (const [client, rule] of Object.entries(config.perClient ?? {})) checkRule(rule, `.perClient[${JSON.stringify(client.slice(0, 40))}]`);
  for (const [model, rule] of Object.entries(config.perModel ?? {})) {
    if (!isCount(rule.tokensPerMinute) || rule.tokensPerMinute === undefined) throw new ConfigError(`limits.perModel[${JSON.stringify(model.slice(0, 40))}].tokensPerMinute must be a whole number ≥ 1.`);
  }
  const policy = config.onStoreFailure ?? RATE_LIMIT_DEFAULTS.onStoreFailure;
  if (!POLICIES.includes(policy)) throw new ConfigError(`limits.onStoreFailure must be 'local', 'open' or 'closed'; got ${String(policy)}.`);
  const instances = config.expectedInstances ?? RATE_LIMIT_DEFAULTS.expectedInstances;
  if (!isCount(instances)) throw new ConfigError('limits.expectedInstances must be a whole number ≥ 1.');
  const placeTtlMs = config.placeTtlMs ?? RATE_LIMIT_DEFAULTS.placeTtlMs;
  if (!(Number.isSafeInteger(placeTtlMs) && placeTtlMs >= 100)) throw new ConfigError('limits.placeTtlMs must be a whole number of ms ≥ 100.');
  const reserveCap = config.reserveOutputTokens ?? RATE_LIMIT_DEFAULTS.reserveOutputTokens;
  if (!isCount(reserveCap)) throw new ConfigError('limits.reserveOutputTokens must be a whole number ≥ 1.');
  const weights = config.tokenWeights ?? {};
  if (!isWeight(weights.input) || !isWeight(weights.cachedInput) || !isWeight(weights.output)) {
    throw new ConfigError('limits.tokenWeights: `input`, `cachedInput` and `output` must be numbers from 0 to 1000 (default 1).');
  }
  const { input: wIn = 1, cachedInput: wCached = 1, output: wOut = 1 } = weights;
  const store = config.store ?? createMemoryRateLimitStore();
  const local = config.store === undefined ? store : createMemoryRateLimitStore();
  const tell = config.onStoreError ?? ((event): void => process.emitWarning(`chatflux limits: the rate-limit store is ${event.state}; policy ${event.policy}`, { code: 'CHATFLUX_LIMITS_STORE' }));
  const weighs = weighsRule(config) || config.perModel !== undefined || Object.values(config.perClient ?? {}).some(weighsRule);
  let failing = false;

  const ruleOf = (client: string, model: string | undefined): RateLimitRule => {
    const own = config.perClient?.[client];
    const rule: Record<string, number> = {};
    for (const field of RULE_FIELDS) {
      const value = own?.[field] ?? config[field];
      if (value !== undefined) rule[field] = value;
    }
    const perModel = model === undefined ? undefined : config.perModel?.[model]?.tokensPerMinute;
    if (perModel !== undefined) rule['modelTokensPerMinute'] = perModel;
    return rule;
  };
  const share = (rule: RateLimitRule): RateLimitRule => {
    const shared: Record<string, number> = {};
    for (const [field, limit] of Object.entries(rule)) if (typeof limit === 'number') shared[field] = Math.max(1, Math.floor(limit / instances));
    return shared;
  };
  /** The weighted tokens of a usage (input, cached input, output). */
  const weighed = (usage: Usage): number => {
    const prompt = number(usage.prompt_tokens);
    const cached = Math.min(prompt, number(usage.prompt_tokens_details?.cached_tokens));
    return Math.ceil((prompt - cached) * wIn + cached * wCached + number(usage.completion_tokens) * wOut);
  };
  /** A request's estimate: its prompt (counted by characters) and its answer's cap. */
  const estimate = (request: ChatRequest): { prompt: number; reserve: number } => {
    const prompt = countMessageTokens(request).input_tokens;
    const asked = (request as { max_tokens?: unknown; max_completion_tokens?: unknown }).max_completion_tokens ?? (request as { max_tokens?: unknown }).max_tokens;
    const output = typeof asked === 'number' && asked > 0 ? Math.min(asked, reserveCap) : reserveCap;
    return { prompt, reserve: Math.ceil(prompt * wIn + output * wOut) };
  };
  /** Holds the place `placeId` in `holder` until released (settled): renewed every third of its TTL. */
  const hold = (holder: RateLimitStore, client: string, placeId: string, decision: RateLimitDecision, rule: RateLimitRule, model: string | undefined, tokens: { prompt: number; reserve: number } | undefined): RateLimitAdmitted => {
    const headers = rateLimitHeaders(rule, decision);
    const reserved = tokens === undefined || !weighsRule(rule) ? undefined : tokens.reserve;
    if (rule.maxConcurrent === undefined && reserved === undefined) return { headers, release: () => undefined };
    const timer = setInterval(() => void holder.renew(client, placeId, placeTtlMs).catch(() => undefined), Math.max(50, Math.floor(placeTtlMs / 3)));
    timer.unref();
    let released = false;
    let pieces = 0;
    let usage: Usage | undefined;
    let asked = false;
    let failed = false;
    const release = (): void => {
      if (released) return;
      released = true;
      clearInterval(timer);
      if (reserved === undefined || tokens === undefined) {
        void holder.release(client, placeId).catch(() => undefined); // unreachable: the place expires by itself
        return;
      }
      // Nothing emitted and no usage: an upstream never asked, or one that answered nothing (refused, unreachable), is
      // nothing to charge; one asked whose client went away before the first byte read the prompt: it is charged.
      const estimated = usage === undefined;
      const used = usage !== undefined ? weighed(usage) : pieces === 0 && (!asked || failed) ? 0 : Math.ceil(tokens.prompt * wIn + pieces * wOut);
      void holder.settle({ key: client, rule, placeId, ...(model === undefined ? {} : { model }), reserved, used }).catch(() => undefined); // unreachable: charged at the estimate when it expires
      config.onSettle?.({ client, reserved, used, estimated, expiredReservations: decision.expiredReservations ?? 0 });
    };
    if (reserved === undefined) return { headers, release };
    return {
      headers,
      observe: (count, seen) => {
        pieces += count;
        if (seen !== undefined && (typeof seen.prompt_tokens === 'number' || typeof seen.completion_tokens === 'number')) usage = seen;
      },
      upstream: (state) => void (state === 'asked' ? (asked = true) : (failed = true)),
      release,
    };
  };
  const refuse = (rule: RateLimitRule, decision: RateLimitDecision, setHeader?: (name: string, value: string) => void): never => {
    const retryAfterMs = Math.max(1, decision.retryAfterMs);
    for (const [name, value] of Object.entries(rateLimitHeaders(rule, decision))) setHeader?.(name, value);
    const retryAfterSeconds = Math.ceil(retryAfterMs / 1000);
    if (decision.refusedBy === 'budget') {
      // Not worth retrying before the period ends: OpenAI's SDKs obey x-should-retry (no Retry-After is sent)
      setHeader?.('x-should-retry', 'false');
      const budget = rule.tokensPerMonth !== undefined && (rule.tokensPerDay === undefined || retryAfterMs > 86_400_000) ? 'monthly' : 'daily';
      throw new CapacityError('insufficient_quota', `token budget spent: this client's ${budget} token budget does not cover this request; it is whole again in ${retryAfterSeconds} s`, { retryAfterSeconds });
    }
    setHeader?.('retry-after-ms', String(retryAfterMs));
    const what =
      decision.refusedBy === 'concurrency'
        ? `${rule.maxConcurrent ?? 0} requests running at once`
        : decision.refusedBy === 'tokens'
          ? `${Math.min(rule.tokensPerMinute ?? Infinity, rule.modelTokensPerMinute ?? Infinity)} tokens per minute`
          : `${rule.requestsPerMinute ?? 0} requests per minute`;
    throw new CapacityError('rate_limit_exceeded', `rate limit reached: this client may make ${what}; retry in ${retryAfterSeconds} s`, { retryAfterSeconds });
  };

  return {
    weighs,
    async admit(client, setHeader, request) {
      const model = request === undefined ? undefined : (request.model ?? undefined);
      const rule = ruleOf(client, model === undefined || config.perModel?.[model] === undefined ? undefined : model);
      if (Object.keys(rule).length === 0) return { headers: {}, release: () => undefined };
      const placeId = randomUUID();
      const tokens = request === undefined || !weighsRule(rule) ? undefined : estimate(request);
      const modelOf = rule.modelTokensPerMinute === undefined ? undefined : model;
      const admission = (applied: RateLimitRule) => ({
        key: client,
        rule: applied,
        placeId,
        placeTtlMs,
        ...(tokens === undefined ? {} : { tokens: tokens.reserve }),
        ...(modelOf === undefined ? {} : { model: modelOf }),
      });
      let decision: RateLimitDecision;
      let holder = store;
      let applied = rule;
      const asked = admission(rule);
      try {
        decision = await store.admit(asked);
        if (failing) {
          failing = false;
          tell({ state: 'recovered', policy });
        }
      } catch (error) {
        // A reply too late: the store may have admitted it all the same. Undone, so it holds no place and is not charged
        // beside what the failure policy decides.
        void store.abort?.(asked).catch(() => undefined);
        if (!failing) {
          failing = true;
          tell({ state: 'failing', policy, error });
        }
        if (policy === 'open') return { headers: {}, release: () => undefined };
        if (policy === 'closed') {
          throw new CapacityError('limits_unavailable', 'the rate limits cannot be checked now (their store is unreachable); retry shortly', { retryAfterSeconds: 1 });
        }
        holder = local;
        applied = share(rule);
        decision = await local.admit(admission(applied));
      }
      if (!decision.allowed) return refuse(applied, decision, setHeader);
      return hold(holder, client, placeId, decision, applied, modelOf, tokens);
    },
  };
}
