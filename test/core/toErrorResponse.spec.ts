import {
  AbortedError,
  AnswerFailedError,
  ConfigError,
  NetworkError,
  RequestError,
  ShutdownError,
  StreamLogError,
  StreamProtocolError,
  TimeoutError,
  ToolCallError,
  UpstreamHttpError,
  UpstreamStreamError,
} from '../../src/core/errors';
import { toErrorResponse } from '../../src/core/toErrorResponse';

describe('toErrorResponse', () => {
  it.each([
    [new RequestError('invalid_request', 'messages: required'), 400, 'invalid_request_error', 'invalid_request'],
    [new RequestError('unauthorized', 'missing or wrong bearer key'), 401, 'authentication_error', 'unauthorized'],
    [new RequestError('payload_too_large', 'body over 1 MB'), 413, 'invalid_request_error', 'payload_too_large'],
    [
      new RequestError('unsupported_media_type', 'send application/json'),
      415,
      'invalid_request_error',
      'unsupported_media_type',
    ],
  ])('maps %p to %i', (error, status, type, code) => {
    expect(toErrorResponse(error)).toEqual({ status, body: { message: error.message, type, code } });
  });

  it('maps an upstream 429 to 429 with the retry hint in whole seconds', () => {
    const error = new UpstreamHttpError(429, 'rate limit reached', {
      upstreamType: 'rate_limit_reached_error',
      retryAfterMs: 1200,
    });
    expect(toErrorResponse(error)).toEqual({
      status: 429,
      body: { message: 'rate limit reached', type: 'rate_limit_error', code: 'rate_limit_reached_error' },
      retryAfterSeconds: 2,
    });
    expect(toErrorResponse(new UpstreamHttpError(429, 'slow down', { upstreamCode: 'rate_limited' }))).toEqual({
      status: 429,
      body: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limited' },
    });
  });

  it.each([401, 403])('maps an upstream %i (the gateway key refused) to 502 without the provider text', (status) => {
    const error = new UpstreamHttpError(status, 'Incorrect API key provided: sk-abcdefghijklmnop1234', {
      upstreamType: 'invalid_authentication_error',
    });
    const response = toErrorResponse(error);
    expect(response.status).toBe(502);
    expect(response.body.type).toBe('upstream_error');
    expect(response.body.code).toBe('upstream_auth_failed');
    expect(response.body.message).not.toContain('sk-');
    expect(response.body.message).toContain(String(status));
  });

  it.each([400, 402, 404, 422, 500, 503])('maps an upstream %i to 502 with the upstream code', (status) => {
    const response = toErrorResponse(
      new UpstreamHttpError(status, `upstream answered ${status}`, { upstreamCode: 'x_code' }),
    );
    expect(response).toEqual({
      status: 502,
      body: { message: `upstream answered ${status}`, type: 'upstream_error', code: 'x_code' },
    });
  });

  it('maps a used-up quota (even sent as a 429) to 502 without Retry-After: waiting does not refill it', () => {
    for (const error of [
      new UpstreamHttpError(429, 'quota exceeded', { upstreamType: 'exceeded_current_quota_error' }),
      new UpstreamHttpError(429, 'You exceeded your current quota', { upstreamCode: 'insufficient_quota', retryAfterMs: 1000 }),
    ]) {
      const response = toErrorResponse(error);
      expect(response.status).toBe(502);
      expect(response.body.type).toBe('upstream_error');
      expect(response.body.code).toMatch(/quota/);
      expect(response.retryAfterSeconds).toBeUndefined();
    }
  });

  it('maps in-band and protocol failures to 502', () => {
    expect(toErrorResponse(new UpstreamStreamError('overloaded', { upstreamCode: 'engine_overloaded' }))).toEqual({
      status: 502,
      body: { message: 'overloaded', type: 'upstream_error', code: 'engine_overloaded' },
    });
    expect(toErrorResponse(new UpstreamStreamError('bad')).body.code).toBe('upstream_error');
    expect(
      toErrorResponse(new UpstreamStreamError('busy', { upstreamType: 'engine_overloaded_error' })).body.code,
    ).toBe('engine_overloaded_error');
    expect(toErrorResponse(new UpstreamHttpError(503, 'busy')).body.code).toBe('upstream_http');
    expect(toErrorResponse(new StreamProtocolError('stream_incomplete', 'cut', { snippet: 'data: {"x' }))).toEqual({
      status: 502,
      body: { message: 'cut', type: 'upstream_error', code: 'stream_incomplete' },
    });
    expect(toErrorResponse(new AnswerFailedError('insufficient_system_resource', 'failed'))).toEqual({
      status: 502,
      body: { message: 'failed', type: 'upstream_error', code: 'answer_failed' },
    });
    expect(toErrorResponse(new ToolCallError('get_weather', 'bad args')).body).toEqual({
      message: 'bad args',
      type: 'upstream_error',
      code: 'tool_arguments_invalid',
    });
  });

  it('maps a network error to 502 with a fixed message (no internal addresses)', () => {
    expect(toErrorResponse(new NetworkError('connect ECONNREFUSED 10.1.2.3:443'))).toEqual({
      status: 502,
      body: { message: 'the upstream provider could not be reached', type: 'upstream_error', code: 'network' },
    });
  });

  it('maps a timeout to 504 and an abort to 499', () => {
    expect(toErrorResponse(new TimeoutError('first_chunk', 30000))).toEqual({
      status: 504,
      body: { message: 'upstream first chunk timeout after 30000 ms', type: 'timeout_error', code: 'timeout' },
    });
    expect(toErrorResponse(new AbortedError())).toEqual({
      status: 499,
      body: { message: 'the request was aborted', type: 'aborted_error', code: 'aborted' },
    });
  });

  it('maps a shutdown to 503 with a Retry-After, so a connected client knows to retry elsewhere', () => {
    expect(toErrorResponse(new ShutdownError())).toEqual({
      status: 503,
      body: { message: 'the server is shutting down; retry the request', type: 'server_error', code: 'shutting_down' },
      retryAfterSeconds: 1,
    });
    expect(toErrorResponse(new ShutdownError('bye', { retryAfterSeconds: 5 })).retryAfterSeconds).toBe(5);
  });

  it.each([
    ['stream_not_found', 404, 'invalid_request_error'],
    ['stream_exists', 409, 'invalid_request_error'],
    ['stream_truncated', 410, 'invalid_request_error'],
    ['cancelled', 499, 'aborted_error'],
    ['abandoned', 499, 'aborted_error'],
    ['stream_unavailable', 503, 'server_error'],
    ['producer_lost', 503, 'server_error'],
  ] as const)('maps a resumable answer\'s StreamLogError %s to %i %s', (code, status, type) => {
    expect(toErrorResponse(new StreamLogError(code, 'abc', `the stream ${code}`))).toEqual({ status, body: { message: `the stream ${code}`, type, code } });
  });

  it('tells a client to retry a resume the shared log cannot serve now (Retry-After)', () => {
    expect(toErrorResponse(new StreamLogError('stream_unavailable', 'abc', 'later', { retryAfterSeconds: 2 })).retryAfterSeconds).toBe(2);
  });

  it.each([
    new ConfigError('`choice` must be a non-negative integer'),
    new TypeError("Cannot read properties of undefined (reading 'x')"),
    'a string',
    undefined,
    { message: 'sk-abcdef123456' },
    new DOMException('The operation timed out.', 'TimeoutError'), // a numeric code: not a chatflux TimeoutError
    new DOMException('This operation was aborted', 'AbortError'),
  ])('maps %p to a generic 500', (error) => {
    expect(toErrorResponse(error)).toEqual({
      status: 500,
      body: { message: 'internal server error', type: 'server_error', code: 'internal_error' },
    });
  });

  it('redacts sk- keys, Bearer tokens and configured secrets, and never includes a stack', () => {
    const error = new UpstreamStreamError(
      'key sk-live_abcdefghijklmnop rejected; header Bearer abc.def-ghi; gateway key my-own-secret-42',
    );
    const { body } = toErrorResponse(error, { secrets: ['my-own-secret-42'] });
    expect(body.message).not.toMatch(/sk-live|abc\.def|my-own-secret-42/);
    expect(body.message).toContain('[redacted]');
    expect(JSON.stringify(body)).not.toContain('    at ');
    expect(Object.keys(body)).toEqual(['message', 'type', 'code']);
  });

  it.each([
    ['Authorization: Basic dXNlcjpwYXNzd29yZA==', 'dXNlcjpwYXNzd29yZA'],
    ['authorization=Token abcdef123456', 'abcdef123456'],
    ['{"api_key":"opaque-value-1234"}', 'opaque-value-1234'],
    ['x-api-key: 0123456789abcdef', '0123456789abcdef'],
    ['Authorization: Bearer eyJhbGciOi.J9', 'eyJhbGciOi'],
  ])('redacts the credential of %j, scheme word and all', (text, credential) => {
    const { body } = toErrorResponse(new UpstreamStreamError(`upstream echoed ${text}`));
    expect(body.message).not.toContain(credential);
    expect(body.message).toContain('[redacted]');
  });

  it('caps very long messages', () => {
    expect(toErrorResponse(new UpstreamStreamError('x'.repeat(5000))).body.message.length).toBeLessThan(1100);
  });

  it('recognises errors from another realm by name and code', () => {
    const foreign = Object.assign(new Error('upstream said no'), {
      name: 'UpstreamHttpError',
      code: 'upstream_http',
      status: 500,
      toJSON: () => ({}),
    });
    expect(toErrorResponse(foreign).status).toBe(502);
  });
});
