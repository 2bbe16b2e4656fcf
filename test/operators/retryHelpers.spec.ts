import { Agent, errors as undiciErrors, request } from 'undici';
import {
  isConfigError,
  isNetworkError,
  isTimeoutError,
  NetworkError,
  UpstreamHttpError,
  UpstreamStreamError,
} from '../../src/core/errors';
import { computeRetryDelay } from '../../src/operators/computeRetryDelay';
import { isTransientError } from '../../src/operators/isTransientError';
import { parseErrorBody } from '../../src/source/parseErrorBody';
import { parseRetryAfter } from '../../src/source/parseRetryAfter';
import { DEFAULT_RETRY_POLICY } from '../../src/core/retryPolicy';
import { toTransportError } from '../../src/source/toTransportError';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    [{ retryAfterMs: '1500' }, 1500],
    [{ retryAfterMs: '12.3' }, 13],
    [{ retryAfterMs: '200', retryAfter: '9' }, 200],
    [{ retryAfter: '7' }, 7000],
    [{ retryAfter: '0' }, 0],
    [{ retryAfter: 'Thu, 01 Jan 2026 00:00:30 GMT', now }, 30_000],
    [{ retryAfter: 'Wed, 31 Dec 2025 23:59:00 GMT', now }, 0],
    [{ message: 'please try again after 1 seconds' }, 1000],
    [{ message: 'Rate limit reached, try again in 20s.' }, 20_000],
    [{ message: 'try again after 250 ms' }, 250],
    [{ message: 'try again in 2 minutes' }, 120_000],
    [{ retryAfter: 'soon' }, undefined],
    [{ retryAfter: '-5' }, undefined],
    [{ retryAfterMs: 'NaN' }, undefined],
    [{ message: 'Invalid request' }, undefined],
    [{}, undefined],
  ])('%j → %s', (input, expected) => {
    expect(parseRetryAfter(input)).toBe(expected);
  });

  it.each([
    ['later 2'],
    ['x 1'],
    ['Try 30'],
    ['2026-01-01T00:00:30Z'],
    ['Jan 1 2026'],
    ['Thu, 01 Jan 2026 00:00:30'],
    ['Thu, 1 Jan 2026 00:00:30 GMT'],
    ['Thu, 01 Jan 2026 00:00:30 GMT trailing'],
  ])('a Retry-After that is not an HTTP-date shape (%j) is no hint, not "retry now"', (retryAfter) => {
    expect(parseRetryAfter({ retryAfter, now })).toBeUndefined();
    // the message's hint still counts when the header is garbage
    expect(parseRetryAfter({ retryAfter, now, message: 'try again after 2 seconds' })).toBe(2000);
  });

  it('accepts the obsolete RFC 850 and asctime HTTP-date shapes (asctime is GMT whatever the TZ)', () => {
    expect(parseRetryAfter({ retryAfter: 'Thursday, 01-Jan-26 00:00:30 GMT', now })).toBe(30_000);
    const tz = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      expect(parseRetryAfter({ retryAfter: 'Thu Jan  1 00:00:30 2026', now })).toBe(30_000);
      expect(parseRetryAfter({ retryAfter: 'Thu Jan 01 00:00:30 2026', now })).toBe(30_000);
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });
});

describe('isTransientError', () => {
  it('never retries a used-up quota, by type or code, on any status or in-band', () => {
    const quota = [
      new UpstreamHttpError(429, 'quota', { upstreamType: 'exceeded_current_quota_error' }),
      new UpstreamHttpError(429, 'quota', { upstreamType: 'insufficient_quota', upstreamCode: 'insufficient_quota' }),
      new UpstreamHttpError(429, 'quota', { upstreamType: 'requests', upstreamCode: 'insufficient_quota' }),
      new UpstreamHttpError(503, 'quota', { upstreamType: 'exceeded_current_quota_error' }),
      new UpstreamStreamError('quota', { upstreamType: 'exceeded_current_quota_error' }),
    ];
    for (const error of quota) expect(isTransientError(error, DEFAULT_RETRY_POLICY)).toBe(false);
    expect(
      isTransientError(
        new UpstreamHttpError(429, 'rate', { upstreamType: 'rate_limit_reached_error' }),
        DEFAULT_RETRY_POLICY,
      ),
    ).toBe(true);
    // the list is policy data: emptied, a quota 429 is a plain 429 again
    expect(isTransientError(quota[0], { ...DEFAULT_RETRY_POLICY, neverUpstreamTypes: [] })).toBe(true);
  });
});

describe('computeRetryDelay', () => {
  it('uses full jitter over a capped exponential ceiling', () => {
    const policy = { baseDelayMs: 500, maxDelayMs: 8000, maxRetryAfterMs: 60_000 };
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => computeRetryDelay(n, undefined, policy, () => 0.999999))).toEqual([
      499, 999, 1999, 3999, 7999, 7999, 7999,
    ]);
    expect(computeRetryDelay(3, undefined, policy, () => 0)).toBe(0);
    expect(computeRetryDelay(1, undefined, policy, () => 7)).toBe(500); // a bad random is clamped
  });
  it('obeys a sane hint, refuses one above the cap', () => {
    expect(computeRetryDelay(1, 2500, DEFAULT_RETRY_POLICY, () => 0.5)).toBe(2500);
    expect(computeRetryDelay(1, 60_000, DEFAULT_RETRY_POLICY)).toBe(60_000);
    expect(computeRetryDelay(1, 60_001, DEFAULT_RETRY_POLICY)).toBeUndefined();
    expect(computeRetryDelay(1, -1, DEFAULT_RETRY_POLICY, () => 0.5)).toBe(250); // garbage hint: backoff
  });
  it('never waits less than minDelayMs, a hint of 0 included (absent: no floor)', () => {
    expect(computeRetryDelay(1, 0, DEFAULT_RETRY_POLICY)).toBe(DEFAULT_RETRY_POLICY.minDelayMs);
    expect(computeRetryDelay(1, 50, DEFAULT_RETRY_POLICY)).toBe(200);
    expect(computeRetryDelay(1, undefined, DEFAULT_RETRY_POLICY, () => 0)).toBe(200);
    expect(computeRetryDelay(1, 0, { baseDelayMs: 500, maxDelayMs: 8000, maxRetryAfterMs: 60_000 })).toBe(0);
  });
});

describe('parseErrorBody', () => {
  it('reads DeepSeek, Moonshot and loose error shapes', () => {
    expect(
      parseErrorBody(
        '{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}',
      ),
    ).toEqual({
      message: 'Insufficient Balance',
      type: 'unknown_error',
      code: 'invalid_request_error',
    });
    expect(parseErrorBody('{"error":{"message":"m","type":"rate_limit_reached_error"}}')).toEqual({
      message: 'm',
      type: 'rate_limit_reached_error',
      code: undefined,
    });
    expect(parseErrorBody('{"error":"plain"}')).toEqual({ message: 'plain', type: undefined, code: undefined });
    expect(parseErrorBody('{"message":"top","code":429}')).toEqual({ message: 'top', type: undefined, code: '429' });
    expect(parseErrorBody('<html>502</html>')).toBeUndefined();
    expect(parseErrorBody('{"ok":true}')).toBeUndefined();
    expect(parseErrorBody('null')).toBeUndefined();
  });
});

describe('toTransportError', () => {
  it("maps undici's deadlines to TimeoutError phases", () => {
    const connect = toTransportError(new undiciErrors.ConnectTimeoutError(), { connectTimeoutMs: 10_000 });
    expect(isTimeoutError(connect) && connect.phase === 'connect' && connect.timeoutMs === 10_000).toBe(true);
    const headers = toTransportError(new undiciErrors.HeadersTimeoutError(), { headersTimeoutMs: 60_000 });
    expect(isTimeoutError(headers) && headers.phase === 'headers').toBe(true);
  });
  it('maps socket errors to a NetworkError with the cause and a scrubbed message', () => {
    const cause = new undiciErrors.SocketError('other side closed');
    const error = toTransportError(cause);
    expect(isNetworkError(error)).toBe(true);
    expect(error.cause).toBe(cause);
    expect(error.message).toContain('UND_ERR_SOCKET');
    const wrapped = toTransportError(
      new TypeError('terminated', {
        cause: Object.assign(new Error('read ECONNRESET sk-abcdefghijk'), { code: 'ECONNRESET' }),
      }),
      {
        secrets: ['sk-abcdefghijk'],
      },
    );
    expect(wrapped.message).toBe('upstream connection failed (ECONNRESET): terminated: read ECONNRESET [redacted]');
  });
  it('maps a request undici refuses to send (a key ending in CRLF) to a ConfigError that says what to fix, without the key', async () => {
    const key = 'sk-0123456789abcdef\r\n';
    const refused: unknown = await request('http://127.0.0.1:9/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    }).catch((error: unknown) => error);
    expect((refused as { code?: string }).code).toBe('UND_ERR_INVALID_ARG');
    const error = toTransportError(refused, { secrets: [key] });
    expect(isConfigError(error)).toBe(true);
    expect(error.cause).toBe(refused);
    expect(error.message).toContain('invalid authorization header');
    expect(error.message).toMatch(/API key.*whitespace or line breaks/);
    expect(error.message).not.toContain('sk-0123456789abcdef');
    expect(isTransientError(error, DEFAULT_RETRY_POLICY)).toBe(false);
  });

  it('maps an invalid URL and a closed or destroyed pool to a ConfigError', async () => {
    // undici throws this one synchronously
    const badUrl: unknown = await Promise.resolve()
      .then(() => request('http://[::1/x', { method: 'POST' }))
      .catch((e: unknown) => e);
    expect((badUrl as { code?: string }).code).toBe('ERR_INVALID_URL');
    const invalidUrl = toTransportError(badUrl);
    expect(isConfigError(invalidUrl) && invalidUrl.message.includes('baseUrl')).toBe(true);
    const agent = new Agent();
    await agent.destroy();
    const destroyed: unknown = await request('http://127.0.0.1:9/x', { dispatcher: agent }).catch((e: unknown) => e);
    expect((destroyed as { code?: string }).code).toBe('UND_ERR_DESTROYED');
    for (const error of [toTransportError(destroyed), toTransportError(new undiciErrors.ClientClosedError())]) {
      expect(isConfigError(error)).toBe(true);
      expect(error.message).toContain('createChatClient()');
      expect(isTransientError(error, DEFAULT_RETRY_POLICY)).toBe(false);
    }
  });

  it('passes chatflux errors through', () => {
    const error = new NetworkError('x');
    expect(toTransportError(error)).toBe(error);
  });
});
