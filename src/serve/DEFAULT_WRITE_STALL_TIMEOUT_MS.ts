import { SERVING_DEFAULTS } from './SERVING_DEFAULTS.js';

/** How long a response's client may read nothing before the request is ended (`writeStallTimeoutMs`'s default, from `ServingOptionsSchema`), in ms. */
export const DEFAULT_WRITE_STALL_TIMEOUT_MS = SERVING_DEFAULTS.writeStallTimeoutMs;
