/** How long a response's client may read nothing before the request is ended (`writeStallTimeoutMs`'s default), in ms. */
export const DEFAULT_WRITE_STALL_TIMEOUT_MS = 30_000;
