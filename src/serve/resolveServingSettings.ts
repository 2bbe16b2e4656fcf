import { CapacityError, RequestError } from '../core/errors.js';
import { durationMs } from '../core/durationMs.js';
import { checkOptions } from '../core/optionDocs.js';
import type { ParseChatRequestConfig } from '../core/ParseChatRequestConfig.js';
import { checkRequestPolicy } from '../core/checkRequestPolicy.js';
import { resolveRequestLimits } from '../core/resolveRequestLimits.js';
import type { ChatRequest } from '../core/schemas/index.js';
import { assertOneChoice } from './assertOneChoice.js';
import { createConcurrencyLimiter } from './createConcurrencyLimiter.js';
import { createRateLimiter, type RateLimiter } from './createRateLimiter.js';
import { authorizeBearer } from './authorizeBearer.js';
import { bearerKey } from './bearerKey.js';
import { clientKeyOfKey } from './clientKeyOfKey.js';
import { createSseTokens, type SseToken, type SseTokens } from './createSseTokens.js';
import { SERVING_DEFAULTS } from './SERVING_DEFAULTS.js';
import { ServingOptionsSchema } from './ServingOptionsSchema.js';
import { parseByteLimit } from './parseByteLimit.js';
import type { ServingSettingsConfig } from './ServingSettingsConfig.js';

/** The serving options with their defaults applied, checked, and the per-endpoints state built from them. */
export interface ServingSettings {
  /** The accepted Bearer keys, empty ones dropped; empty: the endpoints are open. */
  readonly keys: readonly string[];
  /** The JSON body limit (default `'1mb'`). */
  readonly bodyLimit: number | string;
  /** The longest wait for a whole body, in ms (default 30000; `0`: none). */
  readonly bodyTimeoutMs: number;
  /** The heartbeat interval of the streaming responses, in ms (default 15000; `0`: none). */
  readonly heartbeatMs: number;
  /** The longest `q` of `GET /chat/sse`, in characters (default 8192). */
  readonly queryLimit: number;
  /** The write stall deadline of a response's demand gate, in ms (default 30000). */
  readonly stallTimeoutMs: number;
  /** The longest string field of a log entry (default 1024). */
  readonly maxLogFieldChars: number;
  /** What error messages and log entries redact: the keys, `secrets` and `tokenSecret`. */
  readonly secrets: readonly string[];
  /** What `parseChatRequest` checks: the resolved request limits and the checked request policy. */
  readonly parseConfig: ParseChatRequestConfig;
  /**
   * The chat endpoints' check of `n` after the schema: `assertOneChoice` (400 for `n` > 1), unless
   * `allowSeveralChoices`. OpenAI's endpoint calls `assertOneChoice` itself, always.
   *
   * @throws RequestError `invalid_request` (400) for `n` > 1 when several choices are not allowed.
   */
  checkChoices(request: ChatRequest): ChatRequest;
  /** The signer of `POST /chat/token`'s tokens; `undefined` without keys (no tokens then). */
  readonly tokens: SseTokens | undefined;
  /**
   * Takes one of this client's places (`maxConcurrentPerClient`, default 32) until the returned release is called.
   *
   * @throws CapacityError `concurrency_limit` (429) when the client already has `maxConcurrentPerClient` running.
   */
  admit(client: string): () => void;
  /** The per-key limits of `limits` (shared through its store); `undefined` without `limits`. */
  readonly limiter: RateLimiter | undefined;
  /**
   * The client a `GET /chat/sse?token=…` request counts as, once its token is checked: by default the client of the
   * token's key (`key:<hash>`, as a request with that key in its `Authorization` header); with `clientKey`, what it says.
   *
   * @param token - The `token` query parameter.
   * @param clientKey - A custom client key of the request, asked only once the token is accepted.
   * @throws RequestError `unauthorized` (401) for a forged, malformed, non-canonical or expired token, or one whose
   *   key is no longer configured (call only with `tokens`).
   */
  tokenClient(token: string, clientKey?: () => string): string;
  /**
   * The `caller` a route's circuit breakers count a request's failures by (`ChatCallOptions.caller`): the client it
   * was admitted as (`admit`), when clients can be told apart: by their keys (two or more), or by a custom
   * `clientKey`. With one key or none every request may be one client's (or a proxy's address): no caller, and every
   * failure counts, as an outage's must. Both adapters pass the same client to `admit` and here, so a
   * `GET /chat/sse?token=…` counts as its token's key, as a POST with that key does.
   *
   * @param client - The request's client, as admitted.
   * @param customClientKey - The endpoints were given a `clientKey` of their own.
   * @returns The caller, or `undefined` when clients cannot be told apart.
   */
  callerOf(client: string, customClientKey: boolean): string | undefined;
  /**
   * Answers `POST /chat/token`: a token for the request's key.
   *
   * @param authorization - The request's `Authorization` header.
   * @throws RequestError `invalid_request` (400) without keys, `unauthorized` (401) without an accepted key.
   */
  issueToken(authorization: string | undefined): SseToken;
  /**
   * The token signer, for `POST /chat/token`.
   *
   * @throws RequestError `invalid_request` (400) without keys: the endpoints are open and need no token.
   */
  requireTokens(): SseTokens;
}

/**
 * Resolves the serving options once, for the serving core (`createServingCore`), whatever the transport: the
 * defaults, the redacted secrets, the request limits and policy, the per-client limiter and the `EventSource` token
 * signer — and the refusals built on them, so every transport answers with the same messages.
 *
 * The defaults and ranges are `ServingOptionsSchema`'s. A wrong option is refused here, when the endpoints are
 * created, in this order: `apiKeys` and `secrets` (lists of strings), the request limits, the request policy,
 * `maxConcurrentPerClient`, `limits` (`createRateLimiter`), then (with keys) `tokenSecret` and `tokenTtlMs`, then every other field against the schema,
 * in its order (`checkOptions`: the durations `bodyTimeoutMs`, `writeStallTimeoutMs`, `heartbeatMs` are a non-negative
 * number of ms, `queryLimit` a non-negative number, …), and `bodyLimit` is read as bytes (`parseByteLimit`: a number, or a string such as `'1mb'`). A duration of `Infinity`, or longer than a timer can wait (2^31 - 1 ms, about 24.8 days),
 * means none, as `0` does: Node would fire such a timer after 1 ms.
 *
 * @param config - The endpoints' options.
 * @returns The settings.
 * @throws ConfigError naming the option to fix.
 */
export function resolveServingSettings(config: ServingSettingsConfig): ServingSettings {
  checkOptions(ServingOptionsSchema, { apiKeys: config.apiKeys, secrets: config.secrets }); // read first: two lists of strings
  const keys = (config.apiKeys ?? []).filter((key) => key !== '');
  const secrets = [...keys, ...(config.secrets ?? []), ...(config.tokenSecret === undefined ? [] : [config.tokenSecret])];
  const parseConfig = {
    limits: resolveRequestLimits(config.requestLimits), // a wrong limit is a ConfigError now
    ...(config.requestPolicy === undefined ? {} : { policy: checkRequestPolicy(config.requestPolicy) }),
  };
  const maxPerClient = config.maxConcurrentPerClient ?? SERVING_DEFAULTS.maxConcurrentPerClient;
  const limiter = createConcurrencyLimiter({ maxPerClient });
  const rateLimiter = config.limits === undefined ? undefined : createRateLimiter(config.limits);
  const tokenConfig = {
    keys,
    ...(config.tokenSecret === undefined ? {} : { secret: config.tokenSecret }),
    ...(config.tokenTtlMs === undefined ? {} : { ttlMs: config.tokenTtlMs }),
  };
  const tokens = keys.length === 0 ? undefined : createSseTokens(tokenConfig);
  // The token options were checked by createSseTokens with keys; without keys no token is signed: not checked.
  checkOptions(ServingOptionsSchema, config, ['requestLimits', 'requestPolicy', 'maxConcurrentPerClient', 'limits', 'tokenSecret', 'tokenTtlMs']);
  const bodyTimeoutMs = durationMs('bodyTimeoutMs', config.bodyTimeoutMs, SERVING_DEFAULTS.bodyTimeoutMs);
  const stallTimeoutMs = durationMs('writeStallTimeoutMs', config.writeStallTimeoutMs, SERVING_DEFAULTS.writeStallTimeoutMs);
  const heartbeatMs = durationMs('heartbeatMs', config.heartbeatMs, SERVING_DEFAULTS.heartbeatMs);
  const queryLimit = config.queryLimit ?? SERVING_DEFAULTS.queryLimit;
  const bodyLimit = config.bodyLimit ?? SERVING_DEFAULTS.bodyLimit;
  parseByteLimit(bodyLimit); // a wrong limit is a ConfigError now, not a request's
  const requireTokens = (): SseTokens => {
    if (tokens === undefined) throw new RequestError('invalid_request', 'no API keys are configured: the endpoints are open and GET /chat/sse needs no token');
    return tokens;
  };
  return {
    keys,
    bodyLimit,
    bodyTimeoutMs,
    heartbeatMs,
    queryLimit,
    stallTimeoutMs,
    maxLogFieldChars: config.maxLogFieldChars ?? SERVING_DEFAULTS.maxLogFieldChars,
    secrets,
    parseConfig,
    tokens,
    limiter: rateLimiter,
    checkChoices: config.allowSeveralChoices === true ? (request) => request : assertOneChoice,
    admit(client) {
      const release = limiter.tryAcquire(client);
      if (release === undefined) {
        throw new CapacityError('concurrency_limit', `this client already has ${maxPerClient} requests running; retry when one has ended`);
      }
      return release;
    },
    tokenClient(token, clientKey) {
      const key = tokens?.verify(token);
      if (key === undefined) throw new RequestError('unauthorized', 'invalid or expired token: get a new one from POST /chat/token (with the API key)');
      return clientKey?.() ?? clientKeyOfKey(key);
    },
    callerOf: (client, customClientKey) => (keys.length > 1 || customClientKey ? client : undefined),
    requireTokens,
    issueToken(authorization) {
      const signer = requireTokens();
      authorizeBearer(authorization, keys);
      return signer.issue(bearerKey(authorization) ?? '');
    },
  };
}
