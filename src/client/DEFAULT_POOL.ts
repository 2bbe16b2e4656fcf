/**
 * The defaults of a chat client's own connection pool (`createChatClient`'s `connections` and `connectionWaitMs`):
 * 128 connections per origin (one per concurrent streamed answer), and a wait of 10 s for a free one before the
 * request errors with `CapacityError('upstream_busy')`.
 */
export const DEFAULT_POOL = Object.freeze({
  /** The most connections the client's `Agent` opens per origin. */
  connections: 128,
  /** How long a request waits for a free connection, in ms. */
  connectionWaitMs: 10_000,
});
