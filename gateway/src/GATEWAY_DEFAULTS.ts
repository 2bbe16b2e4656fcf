/**
 * The gateway's defaults for the settings whose variables are unset (see `loadGatewayConfig`): its own (the grace,
 * the emulator's pace), and those of the client and the serving core that its banner prints.
 */
export const GATEWAY_DEFAULTS = Object.freeze({
  /** `CHATFLUX_SHUTDOWN_GRACE_MS`: how long requests in flight may still run after SIGTERM/SIGINT. */
  shutdownGraceMs: 10_000,
  /**
   * `CHATFLUX_EMULATOR_PACE_MS`: milliseconds between two events of the built-in emulator — about a provider's pace
   * (30–40 tokens a second), so that the demo page streams as it would in front of a real provider. The emulator's
   * own default (0, everything at once) stays what tests and `chatflux-emulator` get.
   */
  emulatorPaceMs: 30,
  /**
   * `CHATFLUX_KEEP_ALIVE_TIMEOUT_MS`: how long an idle client connection is kept open (Node's own default is 5 s).
   * Longer than the idle timeouts of the balancers in front (AWS ALB 60 s, nginx's upstream keepalive 60 s): a
   * balancer that reuses a connection the gateway has just closed gets a reset (a 502 to its client). Announced to
   * clients in `Keep-Alive: timeout=65`.
   */
  keepAliveTimeoutMs: 65_000,
  /**
   * `startGateway`'s `clientHeadersTimeoutMs`: how long a client may take to send a request's headers, from their
   * first byte (Node's own `headersTimeout`). Bounded on its own, not tied to `keepAliveTimeoutMs`: keeping idle
   * connections an hour must not let a client take an hour to send its headers (slowloris).
   */
  clientHeadersTimeoutMs: 60_000,
  /** `CHATFLUX_UPSTREAM_CONNECTIONS`: createChatClient's own default `connections`, as the banner prints it. */
  upstreamConnections: 128,
  /** `CHATFLUX_CONNECTION_WAIT_MS`: createChatClient's own default `connectionWaitMs`, as the banner prints it. */
  connectionWaitMs: 10_000,
  /** `CHATFLUX_MAX_CONCURRENT_PER_CLIENT`: the serving core's own default `maxConcurrentPerClient`, as the banner prints it. */
  maxConcurrentPerClient: 32,
  /** `CHATFLUX_ABANDON_AFTER_MS`: the serving core's own default `resumable.abandonAfterMs`, as the banner prints it. */
  abandonAfterMs: 60_000,
  /** `CHATFLUX_STREAM_RETENTION_MS`: how long a finished answer can be replayed (the stream log's default retention). */
  streamRetentionMs: 600_000,
});
