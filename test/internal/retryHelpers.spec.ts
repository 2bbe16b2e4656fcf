import { errors as undiciErrors } from 'undici';
import { isNetworkError, isTimeoutError, NetworkError } from '../../src/errors';
import { computeRetryDelay } from '../../src/internal/computeRetryDelay';
import { parseErrorBody } from '../../src/internal/parseErrorBody';
import { parseRetryAfter } from '../../src/internal/parseRetryAfter';
import { DEFAULT_RETRY_POLICY } from '../../src/internal/retryPolicy';
import { toTransportError } from '../../src/internal/toTransportError';

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
  it('passes chatflux errors through', () => {
    const error = new NetworkError('x');
    expect(toTransportError(error)).toBe(error);
  });
});
