import { ANTHROPIC_JSON_WIRE } from '../../src/wire/ANTHROPIC_JSON_WIRE';
import { ANTHROPIC_WIRE } from '../../src/wire/ANTHROPIC_WIRE';
import { toAnthropicError } from '../../src/wire/toAnthropicError';

describe('ANTHROPIC_WIRE and ANTHROPIC_JSON_WIRE', () => {
  it('frames an event by its type; the trailer is message_stop, the heartbeat a ping, an error the error event', () => {
    expect(ANTHROPIC_WIRE.encode({ type: 'content_block_stop', index: 0 })).toBe('event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n');
    expect(ANTHROPIC_WIRE.trailer).toBe('event: message_stop\ndata: {"type":"message_stop"}\n\n');
    expect(ANTHROPIC_WIRE.heartbeat).toBe('event: ping\ndata: {"type":"ping"}\n\n');
    expect(ANTHROPIC_WIRE.encodeError({ message: 'slow', type: 'timeout_error', code: 'timeout:idle' })).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"timeout_error","message":"slow"}}\n\n',
    );
    expect(ANTHROPIC_WIRE.errorResponse).toBe(ANTHROPIC_JSON_WIRE);
    expect(ANTHROPIC_JSON_WIRE.encodeError({ message: 'no', type: 'authentication_error', code: 'unauthorized' })).toBe('{"type":"error","error":{"type":"authentication_error","message":"no"}}');
  });

  it('refuses a value that is not an event, saying what to send', () => {
    for (const value of [{ text: 'x' }, 'x', null, { type: 'a\nevent: b' }]) {
      expect(() => ANTHROPIC_WIRE.encode(value)).toThrow(expect.objectContaining({ name: 'ConfigError', message: expect.stringContaining("toAnthropicEvents' output") }));
    }
  });

  it.each([
    [{ type: 'invalid_request_error', code: 'invalid_request' }, 'invalid_request_error'],
    [{ type: 'invalid_request_error', code: 'payload_too_large' }, 'request_too_large'],
    [{ type: 'authentication_error', code: 'unauthorized' }, 'authentication_error'],
    [{ type: 'permission_error', code: 'forbidden' }, 'permission_error'],
    [{ type: 'rate_limit_error', code: 'concurrency_limit' }, 'rate_limit_error'],
    [{ type: 'timeout_error', code: 'timeout:first_chunk' }, 'timeout_error'],
    [{ type: 'upstream_error', code: 'engine_overloaded_error' }, 'overloaded_error'],
    [{ type: 'upstream_error', code: 'network' }, 'api_error'],
    [{ type: 'server_error', code: 'shutting_down' }, 'api_error'],
    [{ type: 'aborted_error', code: 'aborted' }, 'api_error'],
  ])('%j is Anthropic\'s %s', (body, type) => {
    expect(toAnthropicError({ message: 'm', ...body })).toEqual({ type: 'error', error: { type, message: 'm' } });
  });
});
