import {
  AbortedError,
  AnswerFailedError,
  CapacityError,
  ConfigError,
  NetworkError,
  ShutdownError,
  StreamProtocolError,
  TimeoutError,
  ToolCallError,
  UpstreamHttpError,
  UpstreamStreamError,
} from '../../src/core/errors';
import { isCutError } from '../../src/operators/isCutError';

describe('isCutError', () => {
  it.each<[string, unknown]>([
    ['a broken connection (NetworkError)', new NetworkError('socket hang up', { midResponse: true })],
    ['an idle timeout', new TimeoutError('idle', 1000)],
    ['a first-chunk timeout', new TimeoutError('first_chunk', 1000)],
    ['an in-band provider error', new UpstreamStreamError('server overloaded', { upstreamType: 'server_error' })],
    ['a stream ended before its end', new StreamProtocolError('stream_incomplete', 'EOF before [DONE]')],
    ['a malformed event', new StreamProtocolError('malformed_json', 'Unexpected token')],
    ['an event of the wrong shape', new StreamProtocolError('schema_violation', 'choices: required')],
    ['broken UTF-8', new StreamProtocolError('sse_invalid_utf8', 'invalid byte')],
    ['a capacity finish (insufficient_system_resource)', new AnswerFailedError('insufficient_system_resource', 'no capacity')],
  ])('counts %s as a cut', (_, error) => {
    expect(isCutError(error)).toBe(true);
  });

  it.each<[string, unknown]>([
    ["the caller's abort", new AbortedError()],
    ['a shutdown', new ShutdownError()],
    ['an answer over its size cap', new StreamProtocolError('answer_too_large', 'over 1000 characters')],
    ['an oversized SSE event', new StreamProtocolError('sse_event_too_large', 'over 1 MB')],
    ['a wrong content type', new StreamProtocolError('unexpected_content_type', 'text/html')],
    ['a total deadline', new TimeoutError('total', 1000)],
    ['a headers timeout (before any answer)', new TimeoutError('headers', 1000)],
    ['a connect timeout', new TimeoutError('connect', 1000)],
    ['an in-band content-policy rejection (by code)', new UpstreamStreamError('refused', { upstreamCode: 'content_filter' })],
    ['an in-band content-policy rejection (by message)', new UpstreamStreamError('Content Exists Risk')],
    ["a tool call's bad arguments", new ToolCallError('get_weather', 'arguments are not JSON')],
    ['an HTTP refusal (before any answer)', new UpstreamHttpError(500, 'internal error')],
    ['a capacity refusal of this server', new CapacityError('upstream_busy', 'busy')],
    ['a configuration error', new ConfigError('bad')],
    ['a plain Error', new Error('socket hang up')],
    ['a non-error value', 'ECONNRESET'],
    ['undefined', undefined],
  ])('does not count %s as a cut', (_, error) => {
    expect(isCutError(error)).toBe(false);
  });
});
