import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../src/core/errors';
import { describeGatewayConfig } from '../src/describeGatewayConfig';
import { loadGatewayConfig } from '../src/loadGatewayConfig';

describe('loadGatewayConfig', () => {
  it('defaults to the in-process emulator on 127.0.0.1:3000, open, heartbeat 15 s', () => {
    expect(loadGatewayConfig({})).toEqual({ port: 3000, host: '127.0.0.1', provider: 'emulator', gatewayKeys: [], heartbeatMs: 15_000 });
  });

  it('reads every variable of the issue', () => {
    expect(
      loadGatewayConfig({
        PORT: '8080',
        HOST: '0.0.0.0',
        CHATFLUX_PROVIDER: 'deepseek',
        CHATFLUX_BASE_URL: 'https://proxy.example/v1',
        CHATFLUX_API_KEY: 'sk-abc',
        CHATFLUX_MODEL: 'deepseek-reasoner',
        CHATFLUX_GATEWAY_KEYS: ' k1, k2 ,,',
        CHATFLUX_MAX_RETRIES: '3',
        CHATFLUX_FIRST_CHUNK_TIMEOUT_MS: '120000',
        CHATFLUX_IDLE_TIMEOUT_MS: '30000',
        CHATFLUX_HEARTBEAT_MS: '0',
      }),
    ).toEqual({
      port: 8080,
      host: '0.0.0.0',
      provider: 'deepseek',
      baseUrl: 'https://proxy.example/v1',
      apiKey: 'sk-abc',
      model: 'deepseek-reasoner',
      gatewayKeys: ['k1', 'k2'],
      maxRetries: 3,
      firstChunkTimeoutMs: 120_000,
      idleTimeoutMs: 30_000,
      heartbeatMs: 0,
    });
  });

  it('reads the shutdown grace and the built-in emulator’s pace, leaving them unset (defaults) when absent', () => {
    expect(loadGatewayConfig({ CHATFLUX_SHUTDOWN_GRACE_MS: '25000', CHATFLUX_EMULATOR_PACE_MS: '0' })).toMatchObject({ shutdownGraceMs: 25_000, emulatorPaceMs: 0 });
    expect(loadGatewayConfig({})).not.toHaveProperty('shutdownGraceMs');
    expect(loadGatewayConfig({})).not.toHaveProperty('emulatorPaceMs');
  });

  it('reads the limits: upstream pool, connection wait, per-client concurrency, answer cap, deadlines', () => {
    const config = loadGatewayConfig({
      CHATFLUX_HEADERS_TIMEOUT_MS: '30000',
      CHATFLUX_MAX_ANSWER_CHARS: '100000',
      CHATFLUX_JSON_TIMEOUT_MS: '120000',
      CHATFLUX_UPSTREAM_CONNECTIONS: '64',
      CHATFLUX_CONNECTION_WAIT_MS: '0',
      CHATFLUX_MAX_CONCURRENT_PER_CLIENT: '8',
    });
    expect(config).toMatchObject({
      headersTimeoutMs: 30_000,
      maxAnswerChars: 100_000,
      jsonTimeoutMs: 120_000,
      upstreamConnections: 64,
      connectionWaitMs: 0,
      maxConcurrentPerClient: 8,
    });
    expect(describeGatewayConfig(config).join('\n')).toContain('64 connections, wait 0 ms, headers timeout 30000 ms');
    for (const [name, value] of [
      ['CHATFLUX_UPSTREAM_CONNECTIONS', '0'],
      ['CHATFLUX_MAX_ANSWER_CHARS', '-5'],
      ['CHATFLUX_JSON_TIMEOUT_MS', 'soon'],
      ['CHATFLUX_CONNECTION_WAIT_MS', '1.5'],
      ['CHATFLUX_MAX_CONCURRENT_PER_CLIENT', 'x'],
    ] as const) {
      expect(() => loadGatewayConfig({ [name]: value })).toThrow(expect.objectContaining({ message: expect.stringContaining(name) }));
    }
  });

  it('reads the silence and the request deadline (CHATFLUX_SILENCE_TIMEOUT_MS, CHATFLUX_DEADLINE_MS), described with their defaults', () => {
    const config = loadGatewayConfig({ CHATFLUX_SILENCE_TIMEOUT_MS: '5000', CHATFLUX_DEADLINE_MS: '0' });
    expect(config).toMatchObject({ silenceTimeoutMs: 5_000, deadlineMs: 0 });
    expect(describeGatewayConfig(config)).toContain('budget:       silence 5000 ms before the first chunk, no retry after 0 ms');
    expect(describeGatewayConfig(loadGatewayConfig({}))).toContain(
      'budget:       silence 30000 ms (default) before the first chunk, no retry after 60000 ms (default)',
    );
    expect(() => loadGatewayConfig({ CHATFLUX_DEADLINE_MS: '-1' })).toThrow(/CHATFLUX_DEADLINE_MS/);
    expect(() => loadGatewayConfig({ CHATFLUX_SILENCE_TIMEOUT_MS: 'soon' })).toThrow(/CHATFLUX_SILENCE_TIMEOUT_MS/);
  });

  it("takes the provider's own key variable when CHATFLUX_API_KEY is unset", () => {
    expect(loadGatewayConfig({ CHATFLUX_PROVIDER: 'moonshot', MOONSHOT_API_KEY: 'm', DEEPSEEK_API_KEY: 'd' }).apiKey).toBe('m');
    expect(loadGatewayConfig({ CHATFLUX_PROVIDER: 'moonshot-cn', MOONSHOT_API_KEY: 'm' }).apiKey).toBe('m');
    expect(loadGatewayConfig({ CHATFLUX_PROVIDER: 'deepseek', MOONSHOT_API_KEY: 'm', DEEPSEEK_API_KEY: 'd' }).apiKey).toBe('d');
    expect(loadGatewayConfig({ CHATFLUX_PROVIDER: 'deepseek', CHATFLUX_API_KEY: 'c', DEEPSEEK_API_KEY: 'd' }).apiKey).toBe('c');
    expect(loadGatewayConfig({ MOONSHOT_API_KEY: 'm' }).apiKey).toBeUndefined();
  });

  it('every client preset is a provider, with its own key variable', () => {
    expect(loadGatewayConfig({ CHATFLUX_PROVIDER: 'groq', GROQ_API_KEY: 'g' })).toMatchObject({ provider: 'groq', apiKey: 'g' });
    expect(loadGatewayConfig({ CHATFLUX_PROVIDER: 'qwen-cn', DASHSCOPE_API_KEY: 'q' }).apiKey).toBe('q');
    expect(loadGatewayConfig({ CHATFLUX_PROVIDER: 'ollama' }).apiKey).toBeUndefined();
  });

  it('reads the stream-end rule and the request policy', () => {
    expect(loadGatewayConfig({ CHATFLUX_REQUIRE_DONE: 'true' }).requireDone).toBe(true);
    expect(loadGatewayConfig({ CHATFLUX_REQUIRE_DONE: '0' }).requireDone).toBe(false);
    const config = loadGatewayConfig({
      CHATFLUX_ALLOWED_MODELS: ' a, b ,',
      CHATFLUX_MAX_TOKENS: '4096',
      CHATFLUX_MAX_N: '1',
      CHATFLUX_STRIP_FIELDS: 'user, logprobs',
    });
    expect(config.requestPolicy).toEqual({ allowedModels: ['a', 'b'], maxTokens: 4096, maxN: 1, stripFields: ['user', 'logprobs'] });
    expect(describeGatewayConfig(config).join('\n')).toContain('requests:     models a, b; max tokens 4096; max n 1; strips user, logprobs');
    expect(loadGatewayConfig({})).not.toHaveProperty('requestPolicy');
  });

  it('names the worker in a header only when CHATFLUX_DEBUG_WORKER_HEADER asks for it', () => {
    expect(loadGatewayConfig({})).not.toHaveProperty('debugWorkerHeader');
    expect(loadGatewayConfig({ CHATFLUX_DEBUG_WORKER_HEADER: 'true' }).debugWorkerHeader).toBe(true);
    expect(() => loadGatewayConfig({ CHATFLUX_DEBUG_WORKER_HEADER: 'pid' })).toThrow(/CHATFLUX_DEBUG_WORKER_HEADER must be true or false/);
  });

  it('a base URL alone means openai-compatible', () => {
    expect(loadGatewayConfig({ CHATFLUX_BASE_URL: 'http://localhost:8000/v1' }).provider).toBe('openai-compatible');
  });

  it.each([
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ CHATFLUX_PROVIDER: 'gemini' }, /CHATFLUX_PROVIDER must be one of/], // 'openai' is a preset now
    [{ CHATFLUX_REQUIRE_DONE: 'maybe' }, /CHATFLUX_REQUIRE_DONE must be true or false/],
    [{ CHATFLUX_MAX_TOKENS: '0' }, /CHATFLUX_MAX_TOKENS/],
    [{ CHATFLUX_MAX_N: 'two' }, /CHATFLUX_MAX_N/],
    [{ CHATFLUX_STRIP_FIELDS: 'user,messages' }, /CHATFLUX_STRIP_FIELDS cannot strip messages/],
    [{ CHATFLUX_PROVIDER: 'openai-compatible' }, /needs CHATFLUX_BASE_URL/],
    [{ CHATFLUX_BASE_URL: 'ftp://x' }, /CHATFLUX_BASE_URL/],
    [{ CHATFLUX_BASE_URL: 'https://user:pa55word@proxy.example/v1' }, /CHATFLUX_BASE_URL must not hold credentials/],
    [
      { CHATFLUX_ROUTES: JSON.stringify({ chat: { targets: [{ baseUrl: 'http://user:pa55word@10.0.0.1/v1', model: 'm' }] } }) },
      /chat\.targets\.0\.baseUrl must not hold credentials/,
    ],
    [{ CHATFLUX_MAX_RETRIES: '-1' }, /CHATFLUX_MAX_RETRIES/],
    [{ CHATFLUX_IDLE_TIMEOUT_MS: '1.5' }, /CHATFLUX_IDLE_TIMEOUT_MS/],
    [{ CHATFLUX_SHUTDOWN_GRACE_MS: '10s' }, /CHATFLUX_SHUTDOWN_GRACE_MS/],
    [{ CHATFLUX_EMULATOR_PACE_MS: '20000' }, /CHATFLUX_EMULATOR_PACE_MS/],
  ])('refuses %j with a ConfigError naming the variable', (env, message) => {
    expect(() => loadGatewayConfig(env)).toThrow(ConfigError);
    expect(() => loadGatewayConfig(env)).toThrow(message);
    expect(() => loadGatewayConfig(env)).not.toThrow(/pa55word/); // a password is never echoed
  });

  it('writes CHATFLUX_CORS_ORIGINS as browsers send Origin: host in lower case, no default port', () => {
    const config = loadGatewayConfig({ CHATFLUX_CORS_ORIGINS: 'https://App.Example.com:443, http://LOCALHOST:80,http://localhost:5173' });
    expect(config.corsOrigins).toEqual(['https://app.example.com', 'http://localhost', 'http://localhost:5173']);
  });

  it('is described after the gateway\'s own version and the library\'s, each named (the banner\'s first line)', () => {
    const versionOf = (file: string): string => (JSON.parse(readFileSync(join(__dirname, file), 'utf8')) as { version: string }).version;
    expect(describeGatewayConfig(loadGatewayConfig({}))[0]).toBe(`version:      chatflux-gateway ${versionOf('../package.json')} (chatflux ${versionOf('../../package.json')})`);
  });

  it('is described with the values in force: a default is printed as its value, marked (default)', () => {
    const lines = describeGatewayConfig(loadGatewayConfig({}));
    expect(lines.join('\n')).not.toContain('(default) ms');
    expect(lines).toEqual(
      expect.arrayContaining([
        'max retries:  2 (default)',
        'timeouts:     first chunk 600000 ms (default), idle 60000 ms (default)',
        'shutdown:     grace 10000 ms (default)',
        'emulator:     30 ms (default) between events',
      ]),
    );
    const set = describeGatewayConfig(
      loadGatewayConfig({ CHATFLUX_PROVIDER: 'deepseek', CHATFLUX_MAX_RETRIES: '0', CHATFLUX_FIRST_CHUNK_TIMEOUT_MS: '5000', CHATFLUX_SHUTDOWN_GRACE_MS: '3000' }),
    );
    expect(set).toEqual(expect.arrayContaining(['max retries:  0', 'timeouts:     first chunk 5000 ms, idle 60000 ms (default)', 'shutdown:     grace 3000 ms']));
    expect(set.some((line) => line.startsWith('emulator:'))).toBe(false);
  });

  it('is described without secrets, warning when the gateway is open', () => {
    const open = describeGatewayConfig(loadGatewayConfig({ CHATFLUX_PROVIDER: 'deepseek', DEEPSEEK_API_KEY: 'sk-very-secret' }));
    expect(open.join('\n')).not.toContain('sk-very-secret');
    expect(open.join('\n')).toContain('API key:      set');
    expect(open.at(-1)).toMatch(/^WARNING: CHATFLUX_GATEWAY_KEYS is not set/);
    const closed = describeGatewayConfig(loadGatewayConfig({ CHATFLUX_GATEWAY_KEYS: 'gk-secret-1,gk-secret-2' }));
    expect(closed.join('\n')).not.toMatch(/gk-secret/);
    expect(closed.join('\n')).toContain('2 configured');
    expect(closed.some((line) => line.startsWith('WARNING'))).toBe(false);
  });

  it('is described with the write stall deadline and the token lifetime, never the token secret', () => {
    const defaults = describeGatewayConfig(loadGatewayConfig({ CHATFLUX_GATEWAY_KEYS: 'gk-1' }));
    expect(defaults).toEqual(
      expect.arrayContaining([
        'clients:      write stall timeout 30000 ms (default)',
        'tokens:       POST /chat/token, valid 60000 ms (default), secret random per process',
      ]),
    );
    const secret = 'token-secret-do-not-print-0123';
    const set = describeGatewayConfig(
      loadGatewayConfig({ CHATFLUX_GATEWAY_KEYS: 'gk-1', CHATFLUX_WRITE_STALL_TIMEOUT_MS: '5000', CHATFLUX_TOKEN_TTL_MS: '20000', CHATFLUX_TOKEN_SECRET: secret }),
    );
    expect(set).toEqual(expect.arrayContaining(['clients:      write stall timeout 5000 ms', 'tokens:       POST /chat/token, valid 20000 ms, secret set']));
    expect(set.join('\n')).not.toContain(secret);
    expect(set.join('\n')).not.toContain('token-secret');
    expect(describeGatewayConfig(loadGatewayConfig({ CHATFLUX_WRITE_STALL_TIMEOUT_MS: '0' }))).toEqual(
      expect.arrayContaining(['clients:      write stall timeout off', 'tokens:       none (open: GET /chat/sse needs no token)']),
    );
  });

  it('CHATFLUX_METRICS_TOKEN: one word, trimmed; a token with a space inside is a ConfigError that does not print it', () => {
    expect(loadGatewayConfig({ CHATFLUX_METRICS_TOKEN: ' metrics-token-1 ' }).metricsToken).toBe('metrics-token-1');
    expect(loadGatewayConfig({ CHATFLUX_METRICS_TOKEN: '  ' })).not.toHaveProperty('metricsToken');
    const bad = (): unknown => loadGatewayConfig({ CHATFLUX_METRICS_TOKEN: 'metrics secret' });
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/CHATFLUX_METRICS_TOKEN must be one word/);
    expect(bad).not.toThrow(/metrics secret/);
  });

  it('CHATFLUX_REDIS_URL: a redis:// or rediss:// URL, checked at load (so --check-config fails too), without printing it', () => {
    expect(loadGatewayConfig({ CHATFLUX_REDIS_URL: 'redis://:pw@127.0.0.1:6379/0' }).redisUrl).toBe('redis://:pw@127.0.0.1:6379/0');
    for (const url of ['unix:///tmp/redis-secret.sock', 'http://user:hunter2-secret@127.0.0.1:6379']) {
      const bad = (): unknown => loadGatewayConfig({ CHATFLUX_REDIS_URL: url });
      expect(bad).toThrow(ConfigError);
      expect(bad).toThrow(/CHATFLUX_REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/);
      expect(bad).not.toThrow(/secret/);
    }
  });
});
