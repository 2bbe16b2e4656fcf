import { formatNdjsonError } from '../../src/wire/formatNdjsonError';

describe('formatNdjsonError', () => {
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
