/** The gateway's defaults for the settings whose variables are unset (see `loadGatewayConfig`). */
export const GATEWAY_DEFAULTS = Object.freeze({
  /** `CHATFLUX_SHUTDOWN_GRACE_MS`: how long requests in flight may still run after SIGTERM/SIGINT. */
  shutdownGraceMs: 10_000,
  /**
   * `CHATFLUX_EMULATOR_PACE_MS`: milliseconds between two events of the built-in emulator — about a provider's pace
   * (30–40 tokens a second), so that the demo page streams as it would in front of a real provider. The emulator's
   * own default (0, everything at once) stays what tests and `chatflux-emulator` get.
   */
  emulatorPaceMs: 30,
});
