import { ConfigError } from '../core/errors.js';

/** Where the gateway gets its answers: the built-in emulator, or a provider preset. */
export type GatewayProvider = 'emulator' | 'moonshot' | 'moonshot-cn' | 'deepseek' | 'openai-compatible';

/** The gateway's configuration, as {@link loadGatewayConfig} reads it from the environment. */
export interface GatewayConfig {
  /** `PORT`, default 3000 (`0`: an ephemeral port). */
  port: number;
  /** `HOST`, default `127.0.0.1`. */
  host: string;
  /** `CHATFLUX_PROVIDER`; `emulator` when unset (or `openai-compatible` when only `CHATFLUX_BASE_URL` is set). */
  provider: GatewayProvider;
  /** `CHATFLUX_BASE_URL`: the provider's base URL (required for `openai-compatible`). */
  baseUrl?: string;
  /** `CHATFLUX_API_KEY`, else `MOONSHOT_API_KEY` (moonshot presets) or `DEEPSEEK_API_KEY` (deepseek). Secret. */
  apiKey?: string;
  /** `CHATFLUX_MODEL`: the default model of requests that name none. */
  model?: string;
  /** `CHATFLUX_GATEWAY_KEYS`, comma-separated downstream Bearer keys; empty: the gateway is open. Secret. */
  gatewayKeys: string[];
  /** `CHATFLUX_MAX_RETRIES`: retries of a transient upstream failure before the first chunk. */
  maxRetries?: number;
  /** `CHATFLUX_FIRST_CHUNK_TIMEOUT_MS`: the upstream's deadline for its first chunk. */
  firstChunkTimeoutMs?: number;
  /** `CHATFLUX_IDLE_TIMEOUT_MS`: the longest silence between two upstream chunks. */
  idleTimeoutMs?: number;
  /** `CHATFLUX_HEARTBEAT_MS`: SSE `: ping` after this much silence (`0` disables), default 15000. */
  heartbeatMs: number;
  /**
   * `CHATFLUX_SHUTDOWN_GRACE_MS`: on SIGTERM/SIGINT, how long requests in flight may still run before they end with
   * `shutting_down` (default `GATEWAY_DEFAULTS.shutdownGraceMs`, 10000).
   */
  shutdownGraceMs?: number;
  /**
   * `CHATFLUX_EMULATOR_PACE_MS`: milliseconds between two streamed events of the built-in emulator (provider
   * `emulator` only; default `GATEWAY_DEFAULTS.emulatorPaceMs`, 30: a provider's pace, so that the demo streams).
   */
  emulatorPaceMs?: number;
}


const PROVIDERS: readonly GatewayProvider[] = ['emulator', 'moonshot', 'moonshot-cn', 'deepseek', 'openai-compatible'];

const integer = (env: Record<string, string | undefined>, name: string, min: number, max: number): number | undefined => {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}: fix or unset it.`);
  }
  return value;
};
const text = (env: Record<string, string | undefined>, name: string): string | undefined => {
  const raw = env[name]?.trim();
  return raw === undefined || raw === '' ? undefined : raw;
};

/**
 * Reads the gateway's configuration from environment variables (a pure function: pass `process.env`).
 *
 * @param env - The environment.
 * @returns The configuration, with defaults applied.
 * @throws ConfigError naming the variable to fix (a bad number, an unknown provider, a missing base URL).
 */
export function loadGatewayConfig(env: Record<string, string | undefined>): GatewayConfig {
  const baseUrl = text(env, 'CHATFLUX_BASE_URL');
  const provider = (text(env, 'CHATFLUX_PROVIDER') ?? (baseUrl === undefined ? 'emulator' : 'openai-compatible')) as GatewayProvider;
  if (!PROVIDERS.includes(provider)) {
    throw new ConfigError(`CHATFLUX_PROVIDER must be one of ${PROVIDERS.join(', ')}, got ${JSON.stringify(provider)}.`);
  }
  if (provider === 'openai-compatible' && baseUrl === undefined) {
    throw new ConfigError('CHATFLUX_PROVIDER=openai-compatible needs CHATFLUX_BASE_URL (e.g. https://host/v1).');
  }
  if (baseUrl !== undefined && !/^https?:\/\//.test(baseUrl)) {
    throw new ConfigError(`CHATFLUX_BASE_URL must be an http(s) URL, got ${JSON.stringify(baseUrl)}.`);
  }
  const providerKey = provider.startsWith('moonshot') ? 'MOONSHOT_API_KEY' : provider === 'deepseek' ? 'DEEPSEEK_API_KEY' : undefined;
  const apiKey = text(env, 'CHATFLUX_API_KEY') ?? (providerKey === undefined ? undefined : text(env, providerKey));
  const config: GatewayConfig = {
    port: integer(env, 'PORT', 0, 65535) ?? 3000,
    host: text(env, 'HOST') ?? '127.0.0.1',
    provider,
    gatewayKeys: (env['CHATFLUX_GATEWAY_KEYS'] ?? '')
      .split(',')
      .map((key) => key.trim())
      .filter((key) => key !== ''),
    heartbeatMs: integer(env, 'CHATFLUX_HEARTBEAT_MS', 0, 3_600_000) ?? 15_000,
  };
  const model = text(env, 'CHATFLUX_MODEL');
  const maxRetries = integer(env, 'CHATFLUX_MAX_RETRIES', 0, 10);
  const firstChunkTimeoutMs = integer(env, 'CHATFLUX_FIRST_CHUNK_TIMEOUT_MS', 1, 86_400_000);
  const idleTimeoutMs = integer(env, 'CHATFLUX_IDLE_TIMEOUT_MS', 1, 86_400_000);
  const shutdownGraceMs = integer(env, 'CHATFLUX_SHUTDOWN_GRACE_MS', 0, 3_600_000);
  const emulatorPaceMs = integer(env, 'CHATFLUX_EMULATOR_PACE_MS', 0, 10_000);
  if (baseUrl !== undefined) config.baseUrl = baseUrl;
  if (apiKey !== undefined) config.apiKey = apiKey;
  if (model !== undefined) config.model = model;
  if (maxRetries !== undefined) config.maxRetries = maxRetries;
  if (firstChunkTimeoutMs !== undefined) config.firstChunkTimeoutMs = firstChunkTimeoutMs;
  if (idleTimeoutMs !== undefined) config.idleTimeoutMs = idleTimeoutMs;
  if (shutdownGraceMs !== undefined) config.shutdownGraceMs = shutdownGraceMs;
  if (emulatorPaceMs !== undefined) config.emulatorPaceMs = emulatorPaceMs;
  return config;
}
