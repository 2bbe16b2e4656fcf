import { CapacityError, ConfigError, RequestError } from '../../src/core/errors';
import { DEFAULT_WRITE_STALL_TIMEOUT_MS } from '../../src/serve/DEFAULT_WRITE_STALL_TIMEOUT_MS';
import { resolveServingSettings } from '../../src/serve/resolveServingSettings';
import { bearerClientKey } from '../../src/serve/bearerClientKey';
import { clientKeyOfKey } from '../../src/serve/clientKeyOfKey';

const SECRET = 'a-token-secret-of-16+';

describe('resolveServingSettings', () => {
  it('applies the defaults, and makes no token signer without keys', () => {
    const settings = resolveServingSettings({ apiKeys: [''] });
    expect(settings).toMatchObject({
      keys: [],
      bodyLimit: '1mb',
      bodyTimeoutMs: 30_000,
      queryLimit: 8192,
      stallTimeoutMs: DEFAULT_WRITE_STALL_TIMEOUT_MS,
      maxLogFieldChars: 1024,
      secrets: [],
      tokens: undefined,
    });
    expect(settings.parseConfig.policy).toBeUndefined();
    expect(() => settings.requireTokens()).toThrow(
      new RequestError('invalid_request', 'no API keys are configured: the endpoints are open and GET /chat/sse needs no token'),
    );
  });

  it('keeps the given options, and redacts the keys, the secrets and the token secret', () => {
    const settings = resolveServingSettings({
      apiKeys: ['key-1', '', 'key-2'],
      secrets: ['upstream-key'],
      tokenSecret: SECRET,
      tokenTtlMs: 5000,
      bodyLimit: 100,
      bodyTimeoutMs: 0,
      queryLimit: 10,
      writeStallTimeoutMs: 7,
      maxLogFieldChars: 64,
      requestLimits: { maxMessages: 3 },
      requestPolicy: { maxTokens: 10 },
    });
    expect(settings).toMatchObject({ keys: ['key-1', 'key-2'], bodyLimit: 100, bodyTimeoutMs: 0, queryLimit: 10 });
    expect(settings).toMatchObject({ stallTimeoutMs: 7, maxLogFieldChars: 64 });
    expect(settings.secrets).toEqual(['key-1', 'key-2', 'upstream-key', SECRET]);
    expect(settings.parseConfig.limits?.maxMessages).toBe(3);
    expect(settings.parseConfig.policy).toMatchObject({ maxTokens: 10 });
    expect(settings.tokens?.ttlMs).toBe(5000);
    expect(settings.requireTokens()).toBe(settings.tokens);
  });

  it('admits maxConcurrentPerClient requests of a client, then refuses with 429 until one is released', () => {
    const settings = resolveServingSettings({ maxConcurrentPerClient: 1 });
    const release = settings.admit('a');
    expect(() => settings.admit('a')).toThrow(
      new CapacityError('concurrency_limit', 'this client already has 1 requests running; retry when one has ended'),
    );
    expect(() => settings.admit('a')).toThrow(CapacityError);
    settings.admit('b');
    release();
    expect(() => settings.admit('a')).not.toThrow();
  });

  it('gives the client of a valid token, and refuses a forged one with 401', () => {
    const settings = resolveServingSettings({ apiKeys: ['key-1'], tokenSecret: SECRET });
    const { token } = settings.issueToken('Bearer key-1');
    // the client of its key, as a request with the key in its Authorization header counts; a custom key's when given
    expect(settings.tokenClient(token)).toBe(bearerClientKey('Bearer key-1'));
    expect(settings.tokenClient(token)).toBe(clientKeyOfKey('key-1'));
    expect(settings.tokenClient(token, () => 'custom')).toBe('custom');
    expect(() => settings.issueToken('Bearer key-2')).toThrow(new RequestError('unauthorized', 'missing or invalid API key (send it in the Authorization header, scheme Bearer)'));
    const refusal = new RequestError('unauthorized', 'invalid or expired token: get a new one from POST /chat/token (with the API key)');
    expect(() => settings.tokenClient(`${token}x`)).toThrow(refusal);
    expect(() => settings.tokenClient(`${token}x`)).toThrow(RequestError);
  });

  it("names a request's admitted client as the breakers' caller only when clients can be told apart", () => {
    // two keys or more, or a custom clientKey: the client; one key or none: nobody (every failure counts)
    expect(resolveServingSettings({ apiKeys: ['k1', 'k2'] }).callerOf('key:x', false)).toBe('key:x');
    expect(resolveServingSettings({ apiKeys: ['k1'] }).callerOf('key:x', false)).toBeUndefined();
    expect(resolveServingSettings({}).callerOf('addr:1', false)).toBeUndefined();
    expect(resolveServingSettings({}).callerOf('custom', true)).toBe('custom');
  });

  it.each([
    ['the request limits first', { requestLimits: { maxDepth: 0 }, maxConcurrentPerClient: -1 }, /`maxDepth`/],
    ['then the request policy', { requestPolicy: { maxTokens: -1 }, maxConcurrentPerClient: -1 }, /maxTokens/],
    ['then maxConcurrentPerClient', { maxConcurrentPerClient: -1, apiKeys: ['k'], tokenSecret: 'short' }, /maxPerClient/],
    ['then the token secret (with keys)', { apiKeys: ['k'], tokenSecret: 'short' }, /tokenSecret/],
    ['and the token lifetime (with keys)', { apiKeys: ['k'], tokenTtlMs: 0.5 }, /tokenTtlMs/],
  ])('refuses a wrong option with a ConfigError: %s', (_, config, message) => {
    expect(() => resolveServingSettings(config)).toThrow(ConfigError);
    expect(() => resolveServingSettings(config)).toThrow(message);
  });

  it('does not check the token options without keys (no tokens are signed then)', () => {
    expect(() => resolveServingSettings({ tokenSecret: 'short', tokenTtlMs: -1 })).not.toThrow();
  });
});
