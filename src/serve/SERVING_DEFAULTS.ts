import { ServingOptionsSchema } from './ServingOptionsSchema.js';

/**
 * The serving options' defaults, read from `ServingOptionsSchema` (the one place they are written): `bodyLimit`
 * `'1mb'`, `bodyTimeoutMs` 30000, `maxConcurrentPerClient` 32, `queryLimit` 8192, `writeStallTimeoutMs` 30000,
 * `tokenTtlMs` 60000, `heartbeatMs` 15000, `maxLogFieldChars` 1024, `allowSeveralChoices` false. An option without a
 * default value (`tokenSecret`, `model`, …) is absent.
 */
export const SERVING_DEFAULTS = Object.freeze(ServingOptionsSchema.parse({}));
