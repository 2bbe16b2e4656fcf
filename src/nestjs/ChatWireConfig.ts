import type { WriteResponseConfig } from '../node/index.js';

/**
 * Options of `@ChatJson()`, `@ChatNdjson()`, `@ChatSse()` — those of the node writers, except the demand gate,
 * which is the request's (see `@Demand()`): `heartbeatMs` (SSE only; default 15000, `0` disables), `secrets` to
 * redact from error messages, a `signal` that ends responses in flight (graceful shutdown), `onValue`.
 */
export type ChatWireConfig = Omit<WriteResponseConfig, 'demand'>;
