import { randomUUID } from 'node:crypto';
import { CapacityError, ConfigError } from '../core/errors.js';
import { createMemoryRateLimitStore } from '../store/createMemoryRateLimitStore.js';
import type { RateLimitDecision, RateLimitRule, RateLimitStore } from '../store/RateLimitStore.js';
import type { RateLimitsConfig, RateLimitStoreFailurePolicy } from './RateLimitsConfig.js';
import { RATE_LIMIT_DEFAULTS } from './RATE_LIMIT_DEFAULTS.js';
import { rateLimitHeaders } from './rateLimitHeaders.js';

/** A request admitted by {@link createRateLimiter}: its headers, and the release of its place. */
export interface RateLimitAdmitted {
  /** The rate-limit headers to send (`x-ratelimit-*-requests`, `RateLimit-Policy`, `RateLimit`). */
  readonly headers: Readonly<Record<string, string>>;
  /** Frees the request's place (call once its response has ended; later calls do nothing). */
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
  admit(client: string, setHeader?: (name: string, value: string) => void): Promise<RateLimitAdmitted>;
}

const POLICIES: readonly RateLimitStoreFailurePolicy[] = ['local', 'open', 'closed'];
const isCount = (value: unknown): boolean => value === undefined || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1);

const checkRule = (rule: RateLimitRule, where: string): void => {
  if (!isCount(rule.requestsPerMinute) || !isCount(rule.maxConcurrent)) {
    throw new ConfigError(`limits${where}: \`requestsPerMinute\` and \`maxConcurrent\` must be whole numbers ≥ 1 (leave one out for no limit).`);
  }
};

/**
 * The per-key limits of the serving core (`ServingOptionsSchema`'s `limits`): each admission is one decision of the
 * store (`RateLimitStore.admit`), whose answer becomes the response's rate-limit headers; a held place is renewed
 * while the response runs and freed at its end. When the store cannot decide, the failure policy applies
 * (`onStoreFailure`: `'local'` — this process's share of each limit, in memory; `'open'`; `'closed'` — 503), and the
 * outage is told (`onStoreError`), never silent; the store is asked again at the next admission, so shared limiting
 * resumes as soon as it answers.
 *
 * @param config - The limits, the store and the failure policy.
 * @returns The limiter.
 * @throws ConfigError for a limit that is not a whole number ≥ 1, an unknown policy, or a TTL under 100 ms.
 */
export function createRateLimiter(config: RateLimitsConfig): RateLimiter {
  checkRule(config, '');
  for (const [client, rule] of Object.entries(config.perClient ?? {})) checkRule(rule, `.perClient[${JSON.stringify(client.slice(0, 40))}]`);
  const policy = config.onStoreFailure ?? RATE_LIMIT_DEFAULTS.onStoreFailure;
  if (!POLICIES.includes(policy)) throw new ConfigError(`limits.onStoreFailure must be 'local', 'open' or 'closed'; got ${String(policy)}.`);
  const instances = config.expectedInstances ?? RATE_LIMIT_DEFAULTS.expectedInstances;
  if (!isCount(instances)) throw new ConfigError('limits.expectedInstances must be a whole number ≥ 1.');
  const placeTtlMs = config.placeTtlMs ?? RATE_LIMIT_DEFAULTS.placeTtlMs;
  if (!(Number.isSafeInteger(placeTtlMs) && placeTtlMs >= 100)) throw new ConfigError('limits.placeTtlMs must be a whole number of ms ≥ 100.');
  const store = config.store ?? createMemoryRateLimitStore();
  const local = config.store === undefined ? store : createMemoryRateLimitStore();
  const tell = config.onStoreError ?? ((event): void => process.emitWarning(`chatflux limits: the rate-limit store is ${event.state}; policy ${event.policy}`, { code: 'CHATFLUX_LIMITS_STORE' }));
  let failing = false;

  const ruleOf = (client: string): RateLimitRule => {
    const own = config.perClient?.[client];
    const rpm = own?.requestsPerMinute ?? config.requestsPerMinute;
    const max = own?.maxConcurrent ?? config.maxConcurrent;
    return { ...(rpm === undefined ? {} : { requestsPerMinute: rpm }), ...(max === undefined ? {} : { maxConcurrent: max }) };
  };
  const share = (rule: RateLimitRule): RateLimitRule => {
    const part = (limit: number | undefined): number | undefined => (limit === undefined ? undefined : Math.max(1, Math.floor(limit / instances)));
    const rpm = part(rule.requestsPerMinute);
    const max = part(rule.maxConcurrent);
    return { ...(rpm === undefined ? {} : { requestsPerMinute: rpm }), ...(max === undefined ? {} : { maxConcurrent: max }) };
  };
  /** Holds the place `placeId` in `holder` until released: renewed every third of its TTL. */
  const hold = (holder: RateLimitStore, key: string, placeId: string, decision: RateLimitDecision, rule: RateLimitRule): RateLimitAdmitted => {
    const headers = rateLimitHeaders(rule, decision);
    if (rule.maxConcurrent === undefined) return { headers, release: () => undefined };
    const timer = setInterval(() => void holder.renew(key, placeId, placeTtlMs).catch(() => undefined), Math.max(50, Math.floor(placeTtlMs / 3)));
    timer.unref();
    let released = false;
    return {
      headers,
      release: () => {
        if (released) return;
        released = true;
        clearInterval(timer);
        void holder.release(key, placeId).catch(() => undefined); // unreachable: the place expires by itself
      },
    };
  };
  const refuse = (rule: RateLimitRule, decision: RateLimitDecision, setHeader?: (name: string, value: string) => void): never => {
    const retryAfterMs = Math.max(1, decision.retryAfterMs);
    for (const [name, value] of Object.entries(rateLimitHeaders(rule, decision))) setHeader?.(name, value);
    setHeader?.('retry-after-ms', String(retryAfterMs));
    const what = decision.refusedBy === 'concurrency' ? `${rule.maxConcurrent ?? 0} requests running at once` : `${rule.requestsPerMinute ?? 0} requests per minute`;
    const retryAfterSeconds = Math.ceil(retryAfterMs / 1000);
    throw new CapacityError('rate_limit_exceeded', `rate limit reached: this client may make ${what}; retry in ${retryAfterSeconds} s`, { retryAfterSeconds });
  };

  return {
    async admit(client, setHeader) {
      const rule = ruleOf(client);
      if (rule.requestsPerMinute === undefined && rule.maxConcurrent === undefined) return { headers: {}, release: () => undefined };
      const placeId = randomUUID();
      let decision: RateLimitDecision;
      let holder = store;
      let applied = rule;
      try {
        decision = await store.admit({ key: client, rule, placeId, placeTtlMs });
        if (failing) {
          failing = false;
          tell({ state: 'recovered', policy });
        }
      } catch (error) {
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
        decision = await local.admit({ key: client, rule: applied, placeId, placeTtlMs });
      }
      if (!decision.allowed) return refuse(applied, decision, setHeader);
      return hold(holder, client, placeId, decision, applied);
    },
  };
}
