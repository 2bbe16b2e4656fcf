import { UI_MESSAGE_WIRE } from '../../src/wire/UI_MESSAGE_WIRE';

describe('UI_MESSAGE_WIRE', () => {
  it('writes a part as a data line; the trailer is [DONE], the heartbeat a comment, an error the error part', () => {
    expect(UI_MESSAGE_WIRE.encode({ type: 'text-delta', id: 'text-0', delta: 'Hi' })).toBe('data: {"type":"text-delta","id":"text-0","delta":"Hi"}\n\n');
    expect(UI_MESSAGE_WIRE.trailer).toBe('data: [DONE]\n\n');
    expect(UI_MESSAGE_WIRE.heartbeat).toBe(': ping\n\n');
    expect(UI_MESSAGE_WIRE.encodeError({ message: 'slow', type: 'timeout_error', code: 'timeout:idle' })).toBe('data: {"type":"error","errorText":"slow"}\n\n');
  });

  it('answers an error before the commit as the error part in JSON, whose text the transport throws', () => {
    expect(UI_MESSAGE_WIRE.errorResponse?.headers).toEqual({ 'Content-Type': 'application/json' });
    expect(UI_MESSAGE_WIRE.errorResponse?.encodeError({ message: 'bad part', type: 'invalid_request_error', code: 'invalid_request' })).toBe('{"type":"error","errorText":"bad part"}');
  });

  it('refuses a value that is not a part, saying what to send', () => {
    for (const value of [{ text: 'x' }, 'x', null, { type: 'a\ndata: b' }]) {
      expect(() => UI_MESSAGE_WIRE.encode(value)).toThrow(expect.objectContaining({ name: 'ConfigError', message: expect.stringContaining("toUiMessageStream's output") }));
    }
  });
});
