import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatRequestLog } from 'chatflux';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../src/startGateway';

/** The names of the three routes {@link startRoutedGateway} configures. */
export interface RoutedGatewayRoutes {
  /** A primary cut after 8 events (`t0`), then its healthy fallback (`t1`): continued as one answer. */
  readonly routed: string;
  /** One target cut after 40 events (`t2`), without continuation: the cut reaches the client. */
  readonly cut: string;
  /** One slow target (`t3`, 400 tokens 20 ms apart): for an abort. */
  readonly slow: string;
}

/** A gateway started by {@link startRoutedGateway}. */
export interface RoutedGateway {
  /** The gateway. */
  readonly gateway: RunningGateway;
  /** Its four upstream emulators, `t0` to `t3`. */
  readonly emulators: readonly Emulator[];
  /** Its request log, one entry per request. */
  readonly logs: ChatRequestLog[];
  /** Stops the gateway and the emulators, and removes the config file. */
  close(): Promise<void>;
}

/**
 * The gateway from a config file, as an operator writes one (the key by reference to `GATEWAY_KEY`), in front of four
 * DeepSeek emulators that tell a route's story (see {@link RoutedGatewayRoutes}), for the tests of an endpoint served
 * through routes (`/v1/messages`, `/chat/ui`).
 *
 * @param key - The gateway key clients send.
 * @param routes - The model names of the three routes.
 * @returns The running gateway.
 */
export async function startRoutedGateway(key: string, routes: RoutedGatewayRoutes): Promise<RoutedGateway> {
  const emulators = await Promise.all(
    ['tokens=40;reset-after=8', '', 'tokens=60;pace=2;reset-after=40', 'tokens=400;pace=20'].map((scenario) =>
      startEmulator({ dialect: 'deepseek', seed: 1, ...(scenario === '' ? {} : { scenario }) }),
    ),
  );
  const target = (i: number): string =>
    `      - { provider: openai-compatible, baseUrl: "${emulators[i]!.url}", model: deepseek-chat, name: t${i}, retries: 0, prefill: deepseek }`;
  const yaml = [
    'upstream:',
    '  emulator: { paceMs: 0 }',
    'serve:',
    '  apiKeys: ${GATEWAY_KEY}',
    '  heartbeatMs: 0',
    'routes:',
    `  ${routes.routed}:`,
    '    breaker: false',
    '    targets:',
    target(0),
    target(1),
    `  ${routes.cut}:`,
    '    breaker: false',
    '    maxContinuations: 0',
    '    targets:',
    target(2),
    `  ${routes.slow}:`,
    '    breaker: false',
    '    targets:',
    target(3),
    '',
  ].join('\n');
  const directory = mkdtempSync(join(tmpdir(), 'chatflux-routed-'));
  const configFile = join(directory, 'gateway.yaml');
  writeFileSync(configFile, yaml);
  const logs: ChatRequestLog[] = [];
  const config = loadGatewayConfig({ GATEWAY_KEY: key }, { configFile });
  const gateway = await startGateway({ ...config, port: 0 }, { log: (entry) => logs.push(entry) });
  return {
    gateway,
    emulators,
    logs,
    close: async () => {
      await gateway.close(0);
      await Promise.all(emulators.map((emulator) => emulator.close()));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
