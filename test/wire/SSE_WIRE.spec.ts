import { SSE_WIRE } from '../../src/wire/SSE_WIRE';

const formatSseError = SSE_WIRE.encodeError;
const SSE_DONE = SSE_WIRE.trailer;

describe('SSE_WIRE.encodeError and trailer', () => {
  it('writes event: error with the body as data, then data: [DONE]', () => {
    expect(formatSseError({ message: 'boom', type: 'upstream_error', code: 'network' })).toBe(
      'event: error\ndata: {"message":"boom","type":"upstream_error","code":"network"}\n\ndata: [DONE]\n\n',
    );
  });

  it('writes only message, type and code, in that order, and escapes line breaks', () => {
    const body = { code: 'c', type: 't', message: 'two\nlines', extra: 1 } as {
      message: string;
      type: string;
      code: string;
    };
    expect(formatSseError(body)).toBe(
      'event: error\ndata: {"message":"two\\nlines","type":"t","code":"c"}\n\n' + SSE_DONE,
    );
  });

  it('the trailer is the spec terminator', () => {
    expect(SSE_DONE).toBe('data: [DONE]\n\n');
  });
});
