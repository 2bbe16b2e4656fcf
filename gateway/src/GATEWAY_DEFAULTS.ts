import { GatewayFileSchema } from './GatewayFileSchema.js';

/**
 * The gateway's defaults, section by section, read from `GatewayFileSchema` (the one place they are written; those of
 * the library's options come from the library: `DEFAULT_TIMEOUTS`, `DEFAULT_RETRY_POLICY`, `DEFAULT_POOL`,
 * `SERVING_DEFAULTS`): what a setting left unset in the file and the environment takes, and what the banner prints.
 */
export const GATEWAY_DEFAULTS = Object.freeze(GatewayFileSchema.parse({}));
