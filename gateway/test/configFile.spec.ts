/**
 * The gateway's config file (`--config FILE`, `CHATFLUX_CONFIG`): one YAML document in sections, checked by
 * `GatewayFileSchema` (errors name the key and its line), secrets only as references to environment variables, the
 * `CHATFLUX_*` variables set over it one key each (`GATEWAY_SETTINGS`), and the annotated example loads.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DEFAULT_POOL } from '../../src/client/DEFAULT_POOL';
import { RATE_LIMIT_DEFAULTS } from '../../src/serve/RATE_LIMIT_DEFAULTS';
import { ConfigError } from '../../src/core/errors';
import { describeOptions } from '../../src/core/optionDocs';
import { DEFAULT_RETRY_POLICY } from '../../src/core/retryPolicy';
import { DEFAULT_MAX_ANSWER_CHARS } from '../../src/operators/defaultMaxAnswerChars';
import { SERVING_DEFAULTS } from '../../src/serve/SERVING_DEFAULTS';
import { DEFAULT_TIMEOUTS } from '../../src/source/defaultTimeouts';
import { describeGatewayConfig } from '../src/describeGatewayConfig';
import { formatResolvedConfig } from '../src/formatResolvedConfig';
import { GATEWAY_DEFAULTS } from '../src/GATEWAY_DEFAULTS';
import { GATEWAY_SETTINGS } from '../src/GATEWAY_SETTINGS';
import { GatewayFileSchema } from '../src/GatewayFileSchema';
import { loadGatewayConfig } from '../src/loadGatewayConfig';

const EXAMPLE = join(__dirname, '..', 'gateway.example.yaml');
/** The variables the example refers to. */
const EXAMPLE_ENV = {
  DEEPSEEK_API_KEY: 'sk-deepseek-secret',
  MOONSHOT_API_KEY: 'sk-moonshot-secret',
  GATEWAY_KEY_WEB: 'gateway-key-web',
  GATEWAY_KEY_BATCH: 'gateway-key-batch',
  CHATFLUX_TOKEN_SECRET: 'a-token-secret-of-32-characters!',
  METRICS_TOKEN: 'metrics-token',
};

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'gateway-config-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** Writes `text` to a file `gateway.yaml` of its own and returns its path. */
let files = 0;
const file = (text: string): string => {
  const path = join(dir, `gateway-${(files += 1)}.yaml`);
  writeFileSync(path, text);
  return path;
};
const load = (text: string, env: Record<string, string> = {}) => loadGatewayConfig(env, { configFile: file(text) });
const refusal = (text: string, env: Record<string, string> = {}): ConfigError => {
  try {
    load(text, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('the config file was accepted');
};

describe('the gateway config file', () => {
  it('loads the annotated example: every section, the secrets from their variables', () => {
    const config = loadGatewayConfig(EXAMPLE_ENV, { configFile: EXAMPLE });
    expect(config).toMatchObject({
      configFile: EXAMPLE,
      port: 3000,
      host: '127.0.0.1',
      keepAliveTimeoutMs: 65_000,
      corsOrigins: ['https://app.example.com'],
      workers: 1,
      shutdownGraceMs: 10_000,
      provider: 'deepseek',
      apiKey: 'sk-deepseek-secret',
      model: 'deepseek-chat',
      maxRetries: 2,
      firstChunkTimeoutMs: 600_000,
      idleTimeoutMs: 60_000,
      deadlineMs: 60_000,
      upstreamConnections: 128,
      connectionWaitMs: 10_000,
      maxAnswerChars: 1_000_000,
      gatewayKeys: ['gateway-key-web', 'gateway-key-batch'],
      tokenSecret: 'a-token-secret-of-32-characters!',
      heartbeatMs: 15_000,
      maxConcurrentPerClient: 32,
      requestPolicy: { allowedModels: ['chat', 'deepseek-chat'], maxTokens: 8192 },
      metricsToken: 'metrics-token',
      routeKeys: { MOONSHOT_API_KEY: 'sk-moonshot-secret' },
    });
    expect(config.routes?.['chat']?.targets.map((target) => target.provider)).toEqual(['deepseek', 'moonshot']);
  });

  it('prints the example resolved without a secret (--check-config)', () => {
    const text = formatResolvedConfig(loadGatewayConfig(EXAMPLE_ENV, { configFile: EXAMPLE }));
    for (const secret of Object.values(EXAMPLE_ENV)) expect(text).not.toContain(secret);
    const printed = parse(text) as Record<string, Record<string, unknown>>;
    expect(printed['upstream']).toMatchObject({ provider: 'deepseek', apiKey: '(set)', retry: 2, timeouts: { idle: 60_000, headers: DEFAULT_TIMEOUTS.headers } });
    expect(printed['serve']).toMatchObject({ apiKeys: '(2 set)', tokenSecret: '(set)', heartbeatMs: 15_000, bodyLimit: '1mb' });
    expect(printed['telemetry']).toEqual({ metricsToken: '(set)' });
    // what it prints is a config file again (secrets aside): the same sections and keys
    expect(printed['streams']).toMatchObject({ resumable: true, redisUrl: '(not set)' });
    const { serve: _serve, upstream: _upstream, telemetry: _telemetry, streams, ...rest } = printed;
    const { redisUrl: _redisUrl, ...streamsWithoutSecret } = streams ?? {};
    expect(GatewayFileSchema.safeParse({ ...rest, streams: streamsWithoutSecret }).success).toBe(true);
    expect(Object.keys(printed)).toEqual(['http', 'process', 'upstream', 'limits', 'routes', 'serve', 'streams', 'telemetry']);
  });

  it('takes the CHATFLUX_* variables over the file, one key each, and CHATFLUX_CONFIG for --config', () => {
    const path = file('upstream:\n  provider: emulator\n  retry: 2\nserve:\n  heartbeatMs: 5000\n');
    const config = loadGatewayConfig({ CHATFLUX_CONFIG: path, CHATFLUX_MAX_RETRIES: '4' });
    expect(config).toMatchObject({ configFile: path, provider: 'emulator', maxRetries: 4, heartbeatMs: 5000 });
    expect(describeGatewayConfig(config)).toEqual(expect.arrayContaining(['max retries:  4', 'heartbeat:    5000 ms', `config file:  ${path} (CHATFLUX_* variables set over it)`]));
  });

  it('is the built-in emulator when it names no provider, as no file is; provider: emulator says so', () => {
    expect(load('http:\n  port: 0\n').provider).toBe('emulator');
    expect(load('upstream:\n  provider: emulator\n').provider).toBe('emulator');
    expect(load('upstream:\n  baseUrl: https://llm.example/v1\n').provider).toBe('openai-compatible');
    expect(loadGatewayConfig({}).provider).toBe('emulator');
  });

  it('refuses a secret written in the file, naming the key and its line, never echoing it', () => {
    const error = refusal('upstream:\n  provider: deepseek\n  apiKey: sk-live-1234567890\n');
    expect(error.message).toMatch(/^upstream\.apiKey \(gateway-\d+\.yaml:3\) holds a secret written in the file: write a reference to an environment variable instead/);
    expect(error.message).not.toContain('sk-live-1234567890');
    expect(refusal('serve:\n  apiKeys:\n    - ${OK_KEY}\n    - plain-key\n', { OK_KEY: 'k' }).message).toMatch(/^serve\.apiKeys\.1 \(gateway-\d+\.yaml:4\) holds a secret/);
    expect(refusal('telemetry:\n  metricsToken: 12345\n').message).toMatch(/^telemetry\.metricsToken \(gateway-\d+\.yaml:2\): a secret is written in the config file as a reference/);
  });

  it('reads a reference to an unset variable as an error naming it, and a list from one variable', () => {
    expect(refusal('upstream:\n  apiKey: ${NOT_SET_ANYWHERE}\n').message).toMatch(/^upstream\.apiKey \(gateway-\d+\.yaml:2\) refers to \$\{NOT_SET_ANYWHERE\}, which is not set\.$/);
    expect(load('serve:\n  apiKeys: ${KEYS}\n', { KEYS: 'a, b' }).gatewayKeys).toEqual(['a', 'b']);
    expect(refusal('upstream:\n  model: deepseek-${TIER}\n').message).toMatch(/a reference to an environment variable is the whole value/);
  });

  it.each([
    ['serve:\n  heartbeat: 5000\n', /^serve\.heartbeat \(gateway-\d+\.yaml:2\): unknown key serve\.heartbeat; serve takes .*heartbeatMs/],
    ['upstrem:\n  retry: 1\n', /^upstrem \(gateway-\d+\.yaml:1\): unknown key upstrem; the sections are http, process, upstream, limits, routes, serve, streams, telemetry\.$/],
    ['http:\n  port: 3000\nserve:\n  heartbeatMs: -1\n', /^serve\.heartbeatMs \(gateway-\d+\.yaml:4\): must be an integer from 0 to 3600000, got -1\.$/],
    ['upstream:\n  retry: many\n', /^upstream\.retry \(gateway-\d+\.yaml:2\): must be an integer from 0 to 10, got "many"\.$/],
    ['upstream:\n  provider: deepsek\n', /^upstream\.provider \(gateway-\d+\.yaml:2\): /],
    ['http:\n  port: [1\nserve: {}\n', /^gateway-\d+\.yaml:\d+: not valid YAML: /],
    ['http:\n  port: 1\nhttp:\n  port: 2\n', /^gateway-\d+\.yaml:3: not valid YAML: Map keys must be unique/],
    ['upstream:\n  baseUrl: ftp://x\n', /^upstream\.baseUrl \(gateway-\d+\.yaml:2\) must be an http\(s\) URL, got "ftp:\/\/x"\.$/],
    ['upstream:\n  provider: openai-compatible\n', /^upstream\.provider \(gateway-\d+\.yaml:2\): openai-compatible needs upstream\.baseUrl/],
    ['routes:\n  chat:\n    targets:\n      - model: m\n', /^gateway-\d+\.yaml: routes\.chat\.targets\.0 \(gateway-\d+\.yaml:4\) needs a baseUrl/],
    ['- just\n- a list\n', /^gateway-\d+\.yaml:1: the config file must be a map of sections/],
    ['', /^gateway-\d+\.yaml is empty/],
  ])('refuses %j naming the key and its line', (text, message) => {
    expect(refusal(text).message).toMatch(message);
  });

  it('a bad variable over the file is named as the variable, as without a file', () => {
    expect(refusal('upstream:\n  retry: 1\n', { CHATFLUX_MAX_RETRIES: 'many' }).message).toMatch(/^CHATFLUX_MAX_RETRIES must be an integer from 0 to 10, got "many": fix or unset it\.$/);
  });

  it('maps each variable to one key of the schema, and every key of the schema to a setting (routes: CHATFLUX_ROUTES)', () => {
    const keys = describeOptions(GatewayFileSchema).map((row) => row.name);
    expect([...GATEWAY_SETTINGS.map((setting) => setting.key), 'routes'].sort()).toEqual([...keys].sort());
    const variables = GATEWAY_SETTINGS.flatMap((setting) => (setting.env === undefined ? [] : [setting.env]));
    expect(new Set(variables).size).toBe(variables.length);
    expect(variables.length).toBeGreaterThanOrEqual(34);
  });

  it('takes its defaults from the library, not from copies', () => {
    expect(GATEWAY_DEFAULTS.upstream).toMatchObject({ retry: DEFAULT_RETRY_POLICY.count, timeouts: { headers: DEFAULT_TIMEOUTS.headers, silence: DEFAULT_TIMEOUTS.silence, firstChunk: DEFAULT_TIMEOUTS.firstChunk, idle: DEFAULT_TIMEOUTS.idle, deadline: DEFAULT_TIMEOUTS.deadline } });
    expect(GATEWAY_DEFAULTS.limits).toEqual({ connections: DEFAULT_POOL.connections, connectionWaitMs: DEFAULT_POOL.connectionWaitMs, maxAnswerChars: DEFAULT_MAX_ANSWER_CHARS, ...RATE_LIMIT_DEFAULTS });
    expect(GATEWAY_DEFAULTS.serve).toMatchObject({
      heartbeatMs: SERVING_DEFAULTS.heartbeatMs,
      bodyTimeoutMs: SERVING_DEFAULTS.bodyTimeoutMs,
      writeStallTimeoutMs: SERVING_DEFAULTS.writeStallTimeoutMs,
      maxConcurrentPerClient: SERVING_DEFAULTS.maxConcurrentPerClient,
      tokenTtlMs: SERVING_DEFAULTS.tokenTtlMs,
      bodyLimit: SERVING_DEFAULTS.bodyLimit,
    });
  });
});
