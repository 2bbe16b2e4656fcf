import { SERVING_DEFAULTS } from './SERVING_DEFAULTS.js';

/** How long a token of `POST /chat/token` is valid (`tokenTtlMs`'s default, from `ServingOptionsSchema`), in ms. */
export const DEFAULT_TOKEN_TTL_MS = SERVING_DEFAULTS.tokenTtlMs;
