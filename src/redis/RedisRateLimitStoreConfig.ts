/** Options of `createRedisRateLimitStore`: where Redis is, the key prefix and the command timeout. */
export interface RedisRateLimitStoreConfig {
  /** The Redis URL (`redis://[[user]:password@]host:port[/db]`, `rediss://` for TLS). Required. */
  readonly url: string;
  /** Prefix of every key. Default `'cf:'` (keys `cf:rl:{<hash of the client key>}:rate`, `:places`). */
  readonly keyPrefix?: string;
  /**
   * The timeout of one decision, in ms: past it the store counts as failing and the serving core's failure policy
   * applies (`RateLimitsConfig.onStoreFailure`). Default 250.
   */
  readonly commandTimeoutMs?: number;
  /** Called with every Redis error (for logs); never with a secret of the URL. Default: ignored. */
  readonly onError?: (error: Error) => void;
}
