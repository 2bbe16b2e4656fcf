/**
 * A real gateway (`startGateway` + `loadGatewayConfig`, as `npm start` runs it) in front of an emulator that demands
 * an upstream key, with downstream keys configured and every log entry captured — for the fault, input and leak suites.
 */
import type { Dispatcher } from 'undici';
import type { ChatRequestLog } from '../../src/express/chatRouter';
import { loadGatewayConfig } from '../../gateway/src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../../gateway/src/startGateway';
import type { EmulatorDialect } from '../../src/testing/EmulatorDialect';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';

/** The upstream key the emulator demands (a secret that must never reach a client or a log). */
export const UPSTREAM_KEY = 'sk-faultmatrix-UPSTREAM-7f3a9c1e5b';
/** The downstream keys of the gateway; the first is the one the tests send. */
export const GATEWAY_KEYS = ['gw-faultmatrix-KEY-one-4d2b8e', 'gw-faultmatrix-KEY-two-9a1c6f'] as const;
/** Every secret to scan for. */
export const SECRETS = [UPSTREAM_KEY, ...GATEWAY_KEYS];
/** The Authorization header of the tests. */
export const AUTH = { Authorization: `Bearer ${GATEWAY_KEYS[0]}` };

/** A gateway with its emulator and captured log. */
export interface FaultGateway {
  gateway: RunningGateway;
  emulator: Emulator;
  logs: ChatRequestLog[];
  close(): Promise<void>;
}

/** Options of {@link startFaultGateway}. */
export interface FaultGatewayOptions {
  dialect?: EmulatorDialect;
  env?: Record<string, string>;
  /** The undici dispatcher of the gateway's client (to read its pool stats). */
  dispatcher?: Dispatcher;
}

/** Starts the emulator and a gateway configured through the environment, as in production. */
export async function startFaultGateway(options: FaultGatewayOptions = {}): Promise<FaultGateway> {
  const emulator = await startEmulator({ dialect: options.dialect ?? 'deepseek', seed: 11, apiKey: UPSTREAM_KEY });
  const logs: ChatRequestLog[] = [];
  const config = loadGatewayConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    CHATFLUX_PROVIDER: 'openai-compatible',
    CHATFLUX_BASE_URL: emulator.url,
    CHATFLUX_API_KEY: UPSTREAM_KEY,
    CHATFLUX_MODEL: 'deepseek-chat',
    CHATFLUX_GATEWAY_KEYS: GATEWAY_KEYS.join(','),
    CHATFLUX_HEARTBEAT_MS: '0',
    // A client that goes away ends its upstream request at once (no answer kept going for a resume): the behaviour
    // these fault suites assert. Resumable answers, where a disconnect is not a cancel, have suites of their own.
    CHATFLUX_ABANDON_AFTER_MS: '0',
    ...options.env,
  });
  const gateway = await startGateway(config, {
    log: (entry) => logs.push(entry),
    ...(options.dispatcher === undefined ? {} : { client: { dispatcher: options.dispatcher } }),
  });
  return {
    gateway,
    emulator,
    logs,
    close: async () => {
      await gateway.close(1000);
      await emulator.close();
    },
  };
}
