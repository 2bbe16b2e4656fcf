/** How long a token of `POST /chat/token` is valid (`tokenTtlMs`'s default), in ms. */
export const DEFAULT_TOKEN_TTL_MS = 60_000;
