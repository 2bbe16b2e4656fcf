import { ConfigError } from '../../src/core/errors';
import { NDJSON_WIRE } from '../../src/wire/NDJSON_WIRE';

const formatNdjsonLine = NDJSON_WIRE.encode;
const formatNdjsonError = NDJSON_WIRE.encodeError;

describe('NDJSON_WIRE.encode (one line per value)', () => {
  it('writes JSON.stringify(value) and one LF', () => {
    expect(formatNdjsonLine({ message: { role: 'assistant', content: "I'm " }, done: false, index: 0 })).toBe(
      '{"message":{"role":"assistant","content":"I\'m "},"done":false,"index":0}\n',
    );
    expect(formatNdjsonLine('s')).toBe('"s"\n');
    expect(formatNdjsonLine(null)).toBe('null\n');
  });

  it('never lets a raw line break into the line; U+2028/U+2029 stay as they are', () => {
    const line = formatNdjsonLine({ t: 'a\nb\r\nc\u2028d\u2029' });
    expect(line.indexOf('\n')).toBe(line.length - 1);
    expect(line).not.toContain('\r');
    expect(line).toContain('\u2028');
    expect(JSON.parse(line)).toEqual({ t: 'a\nb\r\nc\u2028d\u2029' });
  });

  it('rejects a value without a JSON form', () => {
    expect(() => formatNdjsonLine(undefined)).toThrow(ConfigError);
    expect(() => formatNdjsonLine(() => 1)).toThrow(ConfigError);
  });
});

describe('NDJSON_WIRE.encodeError (the error line)', () => {
  it('writes the spec error line', () => {
    expect(
      formatNdjsonError({
        message: 'Error message describing what went wrong',
        type: 'error_type',
        code: 'error_code',
      }),
    ).toBe(
      '{"error":{"message":"Error message describing what went wrong","type":"error_type","code":"error_code"},"done":true}\n',
    );
  });

  it('writes only message, type and code', () => {
    const body = { code: 'c', message: 'm', type: 't', stack: 'at x' } as {
      message: string;
      type: string;
      code: string;
    };
    expect(formatNdjsonError(body)).toBe('{"error":{"message":"m","type":"t","code":"c"},"done":true}\n');
  });
});

describe('NDJSON_WIRE', () => {
  it('adds nothing at the end and has no heartbeat (NDJSON has no comment syntax)', () => {
    expect(NDJSON_WIRE.trailer).toBe('');
    expect(NDJSON_WIRE.heartbeat).toBeUndefined();
    expect(NDJSON_WIRE.streaming).toBe(true);
  });
});
