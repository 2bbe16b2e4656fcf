/**
 * `chatflux/node`: the writers that put an Observable on a `node:http` response as JSON, NDJSON or SSE, and the
 * serving core's framework-free pieces (per-client limits, keys, tokens, restarts, graceful shutdown) for a server of
 * your own. Re-exports only.
 * @packageDocumentation
 * @module chatflux/node
 */
export { sendJson, type SendJsonConfig } from './sendJson.js';
export { sendNdjson, type SendNdjsonConfig } from './sendNdjson.js';
export { sendSse, type SendSseConfig } from './sendSse.js';
export { writeResponse, type WriteResponseConfig } from './writeResponse.js';
export { CHAT_WIRES, type ChatWire } from './CHAT_WIRES.js';
export type { ServingWire } from '../serve/SERVING_WIRES.js';
export {
  createConcurrencyLimiter,
  type ConcurrencyLimiter,
  type ConcurrencyLimiterConfig,
} from '../serve/createConcurrencyLimiter.js';
export { clientKeyOf } from './clientKeyOf.js';
export { clientKeyOfKey } from '../serve/clientKeyOfKey.js';
export { matchesBearerKey } from '../serve/matchesBearerKey.js';
export { acceptsRestart, ACCEPT_RESTART_HEADER } from '../serve/acceptsRestart.js';
export { createSseTokens, type SseToken, type SseTokens, type SseTokensConfig } from '../serve/createSseTokens.js';
export { DEFAULT_TOKEN_TTL_MS } from '../serve/DEFAULT_TOKEN_TTL_MS.js';
export { DEFAULT_WRITE_STALL_TIMEOUT_MS } from '../serve/DEFAULT_WRITE_STALL_TIMEOUT_MS.js';
export { createGracefulShutdown, type GracefulShutdown } from './createGracefulShutdown.js';
export { ServingOptionsSchema, SERVING_DEFAULTS, type ServingSettingsConfig, describeOptions, option, type OptionDoc, type OptionRow } from '../serve/servingOptions.js';
