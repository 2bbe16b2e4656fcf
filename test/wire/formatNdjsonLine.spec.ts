import { ConfigError } from '../../src/core/errors';
import { formatNdjsonLine } from '../../src/wire/formatNdjsonLine';

describe('formatNdjsonLine', () => {
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
