import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator, type EmulatorConfig } from '../../src/testing/startEmulator';
import { startProgram, stopPrograms, type SpawnedProgram } from './gatewayProgram';
import { startRedis, type TestRedis } from './startRedis';

/** A gateway program started by {@link useGatewaysOnRedis}, with the URL it listens on. */
export type RedisGateway = SpawnedProgram & { url: string };

/** What {@link useGatewaysOnRedis} sets up. */
export interface GatewaysOnRedisConfig {
  /** The upstream emulator (deepseek): its seed and the API key the gateways send it (their CHATFLUX_API_KEY). */
  emulator: Pick<EmulatorConfig, 'seed' | 'requestLog'> & { apiKey: string };
  /** The gateways' variables, beside the provider, base URL, upstream key, model, heartbeat (off) and Redis URL. */
  env: Record<string, string>;
  /** A config file (YAML) every gateway reads (CHATFLUX_CONFIG). */
  configFile?: string;
}

/** The shared emulator and redis-server, filled in `beforeAll`, and how to start a gateway program on them. */
export interface GatewaysOnRedis {
  emulator: Emulator;
  redis: TestRedis;
  /**
   * Starts a gateway program (`node --import tsx gateway/src/main.ts`, as `npm start` runs it) in front of the
   * emulator: the suite's `env`, then `env` here on top; on the shared redis-server unless `redis: false` (its own
   * memory stores). Stopped by the `afterAll` of {@link useGatewaysOnRedis}.
   */
  start(env?: Record<string, string>, options?: { redis?: boolean }): Promise<RedisGateway>;
}

/**
 * Gateway programs on one redis-server in front of one upstream emulator, as the `*.redis` suites of gateway/test run
 * them (several instances sharing limits or answers). Registers hooks in the calling scope: `beforeAll` starts the
 * emulator and the redis-server and writes the config file; `afterAll` stops every program started (SIGTERM, each
 * exit awaited), then the redis-server and the emulator, and removes the config file's directory. The returned
 * object is filled in `beforeAll`: read it inside tests and later hooks.
 */
export function useGatewaysOnRedis({ emulator: upstream, env, configFile }: GatewaysOnRedisConfig): GatewaysOnRedis {
  let dir: string | undefined;
  const started: RedisGateway[] = [];
  const gateways: GatewaysOnRedis = {
    emulator: undefined as unknown as Emulator,
    redis: undefined as unknown as TestRedis,
    start: async (extra = {}, { redis = true } = {}) => {
      const gateway = await startProgram({
        ...(dir === undefined ? {} : { CHATFLUX_CONFIG: join(dir, 'gateway.yaml') }),
        CHATFLUX_PROVIDER: 'openai-compatible',
        CHATFLUX_BASE_URL: gateways.emulator.url,
        CHATFLUX_API_KEY: upstream.apiKey,
        CHATFLUX_MODEL: 'deepseek-chat',
        CHATFLUX_HEARTBEAT_MS: '0',
        ...(redis ? { CHATFLUX_REDIS_URL: gateways.redis.url } : {}),
        ...env,
        ...extra,
      });
      started.push(gateway);
      return gateway;
    },
  };
  beforeAll(async () => {
    if (configFile !== undefined) {
      dir = mkdtempSync(join(tmpdir(), 'chatflux-redis-gateways-'));
      writeFileSync(join(dir, 'gateway.yaml'), configFile);
    }
    gateways.emulator = await startEmulator({ dialect: 'deepseek', ...upstream });
    gateways.redis = await startRedis();
  }, 60_000);
  afterAll(async () => {
    await stopPrograms(started);
    await gateways.redis?.stop();
    await gateways.emulator?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }, 30_000);
  return gateways;
}
