/** One setting of the gateway: its key in the config file, the environment variable that sets it, its `GatewayConfig` field. */
export interface GatewaySetting {
  /** Its key in the config file (`GatewayFileSchema`): `upstream.retry`. */
  readonly key: string;
  /** The environment variable that sets it over the file (containers), if any: `CHATFLUX_MAX_RETRIES`. */
  readonly env?: string;
  /** Its field of the resolved `GatewayConfig` (dotted inside `requestPolicy`): `maxRetries`. */
  readonly field: string;
}

/**
 * Every setting of the gateway, written once: the config file's key, the environment variable that overlays it (each
 * variable sets one key; `--help` prints this table), and where `loadGatewayConfig` puts it. The variable's type and
 * range are the key's, in `GatewayFileSchema`. Not in it: `CHATFLUX_CONFIG` (the file itself), `CHATFLUX_ROUTES` /
 * `CHATFLUX_ROUTES_FILE` (the `routes` section as JSON), the providers' own key variables (`DEEPSEEK_API_KEY`, …: the
 * default of `upstream.apiKey`) and `OTEL_EXPORTER_OTLP_*` (read by the exporters).
 */
export const GATEWAY_SETTINGS: readonly GatewaySetting[] = Object.freeze([
  { key: 'http.port', env: 'PORT', field: 'port' },
  { key: 'http.host', env: 'HOST', field: 'host' },
  { key: 'http.keepAliveTimeoutMs', env: 'CHATFLUX_KEEP_ALIVE_TIMEOUT_MS', field: 'keepAliveTimeoutMs' },
  { key: 'http.clientHeadersTimeoutMs', field: 'clientHeadersTimeoutMs' },
  { key: 'http.corsOrigins', env: 'CHATFLUX_CORS_ORIGINS', field: 'corsOrigins' },
  { key: 'process.workers', env: 'CHATFLUX_WORKERS', field: 'workers' },
  { key: 'process.shutdownGraceMs', env: 'CHATFLUX_SHUTDOWN_GRACE_MS', field: 'shutdownGraceMs' },
  { key: 'process.debugWorkerHeader', env: 'CHATFLUX_DEBUG_WORKER_HEADER', field: 'debugWorkerHeader' },
  { key: 'upstream.provider', env: 'CHATFLUX_PROVIDER', field: 'provider' },
  { key: 'upstream.baseUrl', env: 'CHATFLUX_BASE_URL', field: 'baseUrl' },
  { key: 'upstream.apiKey', env: 'CHATFLUX_API_KEY', field: 'apiKey' },
  { key: 'upstream.model', env: 'CHATFLUX_MODEL', field: 'model' },
  { key: 'upstream.retry', env: 'CHATFLUX_MAX_RETRIES', field: 'maxRetries' },
  { key: 'upstream.requireDone', env: 'CHATFLUX_REQUIRE_DONE', field: 'requireDone' },
  { key: 'upstream.timeouts.headers', env: 'CHATFLUX_HEADERS_TIMEOUT_MS', field: 'headersTimeoutMs' },
  { key: 'upstream.timeouts.silence', env: 'CHATFLUX_SILENCE_TIMEOUT_MS', field: 'silenceTimeoutMs' },
  { key: 'upstream.timeouts.firstChunk', env: 'CHATFLUX_FIRST_CHUNK_TIMEOUT_MS', field: 'firstChunkTimeoutMs' },
  { key: 'upstream.timeouts.idle', env: 'CHATFLUX_IDLE_TIMEOUT_MS', field: 'idleTimeoutMs' },
  { key: 'upstream.timeouts.deadline', env: 'CHATFLUX_DEADLINE_MS', field: 'deadlineMs' },
  { key: 'upstream.timeouts.json', env: 'CHATFLUX_JSON_TIMEOUT_MS', field: 'jsonTimeoutMs' },
  { key: 'upstream.emulator.paceMs', env: 'CHATFLUX_EMULATOR_PACE_MS', field: 'emulatorPaceMs' },
  { key: 'upstream.emulator.scenarios', env: 'CHATFLUX_EMULATOR_SCENARIOS', field: 'emulatorScenarios' },
  { key: 'limits.connections', env: 'CHATFLUX_UPSTREAM_CONNECTIONS', field: 'upstreamConnections' },
  { key: 'limits.connectionWaitMs', env: 'CHATFLUX_CONNECTION_WAIT_MS', field: 'connectionWaitMs' },
  { key: 'limits.maxAnswerChars', env: 'CHATFLUX_MAX_ANSWER_CHARS', field: 'maxAnswerChars' },
  { key: 'limits.requestsPerMinute', env: 'CHATFLUX_REQUESTS_PER_MINUTE', field: 'limits.requestsPerMinute' },
  { key: 'limits.maxConcurrent', env: 'CHATFLUX_MAX_CONCURRENT', field: 'limits.maxConcurrent' },
  { key: 'limits.tokensPerMinute', env: 'CHATFLUX_TOKENS_PER_MINUTE', field: 'limits.tokensPerMinute' },
  { key: 'limits.tokensPerDay', env: 'CHATFLUX_TOKENS_PER_DAY', field: 'limits.tokensPerDay' },
  { key: 'limits.tokensPerMonth', env: 'CHATFLUX_TOKENS_PER_MONTH', field: 'limits.tokensPerMonth' },
  { key: 'limits.reserveOutputTokens', env: 'CHATFLUX_RESERVE_OUTPUT_TOKENS', field: 'limits.reserveOutputTokens' },
  { key: 'limits.perModel', field: 'limits.perModel' },
  { key: 'limits.tokenWeights', field: 'limits.tokenWeights' },
  { key: 'limits.perKey', field: 'limits.perKey' },
  { key: 'limits.onStoreFailure', env: 'CHATFLUX_LIMITS_ON_STORE_FAILURE', field: 'limits.onStoreFailure' },
  { key: 'limits.expectedInstances', env: 'CHATFLUX_EXPECTED_INSTANCES', field: 'limits.expectedInstances' },
  { key: 'limits.placeTtlMs', env: 'CHATFLUX_LIMITS_PLACE_TTL_MS', field: 'limits.placeTtlMs' },
  { key: 'limits.storeTimeoutMs', env: 'CHATFLUX_LIMITS_STORE_TIMEOUT_MS', field: 'limits.storeTimeoutMs' },
  { key: 'serve.apiKeys', env: 'CHATFLUX_GATEWAY_KEYS', field: 'gatewayKeys' },
  { key: 'serve.heartbeatMs', env: 'CHATFLUX_HEARTBEAT_MS', field: 'heartbeatMs' },
  { key: 'serve.bodyTimeoutMs', env: 'CHATFLUX_BODY_TIMEOUT_MS', field: 'bodyTimeoutMs' },
  { key: 'serve.writeStallTimeoutMs', env: 'CHATFLUX_WRITE_STALL_TIMEOUT_MS', field: 'writeStallTimeoutMs' },
  { key: 'serve.maxConcurrentPerClient', env: 'CHATFLUX_MAX_CONCURRENT_PER_CLIENT', field: 'maxConcurrentPerClient' },
  { key: 'serve.tokenSecret', env: 'CHATFLUX_TOKEN_SECRET', field: 'tokenSecret' },
  { key: 'serve.tokenTtlMs', env: 'CHATFLUX_TOKEN_TTL_MS', field: 'tokenTtlMs' },
  { key: 'serve.allowSeveralChoices', env: 'CHATFLUX_ALLOW_SEVERAL_CHOICES', field: 'allowSeveralChoices' },
  { key: 'serve.requestPolicy.allowedModels', env: 'CHATFLUX_ALLOWED_MODELS', field: 'requestPolicy.allowedModels' },
  { key: 'serve.requestPolicy.maxTokens', env: 'CHATFLUX_MAX_TOKENS', field: 'requestPolicy.maxTokens' },
  { key: 'serve.requestPolicy.maxN', env: 'CHATFLUX_MAX_N', field: 'requestPolicy.maxN' },
  { key: 'serve.requestPolicy.stripFields', env: 'CHATFLUX_STRIP_FIELDS', field: 'requestPolicy.stripFields' },
  { key: 'serve.bodyLimit', field: 'bodyLimit' },
  { key: 'serve.queryLimit', field: 'queryLimit' },
  { key: 'serve.maxLogFieldChars', field: 'maxLogFieldChars' },
  { key: 'streams.resumable', env: 'CHATFLUX_RESUMABLE', field: 'resumable' },
  { key: 'streams.redisUrl', env: 'CHATFLUX_REDIS_URL', field: 'redisUrl' },
  { key: 'streams.abandonAfterMs', env: 'CHATFLUX_ABANDON_AFTER_MS', field: 'abandonAfterMs' },
  { key: 'streams.retentionMs', env: 'CHATFLUX_STREAM_RETENTION_MS', field: 'streamRetentionMs' },
  { key: 'streams.leaseMs', env: 'CHATFLUX_STREAM_LEASE_MS', field: 'streamLeaseMs' },
  { key: 'telemetry.metricsToken', env: 'CHATFLUX_METRICS_TOKEN', field: 'metricsToken' },
  { key: 'telemetry.instanceId', env: 'CHATFLUX_INSTANCE_ID', field: 'instanceId' },
]);
