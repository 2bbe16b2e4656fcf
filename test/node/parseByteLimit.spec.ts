/**
 * `parseByteLimit`: `bodyLimit` as its options document it (bytes, or `'1mb'`, `'100kb'`: 1024-based, as
 * `express.json({ limit })` reads them) — the table the `bytes` package answered before, and a ConfigError that says
 * what to write for anything else, refused when the endpoints are created, not at a request.
 */
import { ConfigError } from '../../src/core/errors';
import { ChatWireInterceptor } from '../../src/nestjs/chatflux.interceptor';
import { parseByteLimit } from '../../src/serve/parseByteLimit';
import { resolveServingSettings } from '../../src/serve/resolveServingSettings';

describe('parseByteLimit', () => {
  it.each<[number | string, number]>([
    ['1mb', 1_048_576], // the default bodyLimit
    ['100kb', 102_400], // Nest's default parser
    ['2kb', 2048],
    ['1MB', 1_048_576], // any case
    ['1 mb', 1_048_576], // a space between
    ['1.5kb', 1536],
    ['0.5kb', 512],
    ['1.0001kb', 1024], // a fraction of a byte dropped, as `bytes` drops it
    ['1gb', 1024 ** 3],
    ['512', 512], // a bare number of bytes
    ['512b', 512],
    ['0', 0],
    [0, 0],
    [512, 512],
    [1_048_576, 1_048_576],
    [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY], // none
  ])('%p → %p bytes', (limit, bytes) => {
    expect(parseByteLimit(limit)).toBe(bytes);
  });

  it.each<unknown>(['', 'mb', '1 megabyte', '-1kb', '1e3', '1,5kb', 'lots', -1, Number.NaN, null, undefined, {}])('%p is a ConfigError saying what to write', (limit) => {
    expect(() => parseByteLimit(limit as string)).toThrow(ConfigError);
    expect(() => parseByteLimit(limit as string)).toThrow(/bodyLimit must be a non-negative number of bytes or a string such as '1mb'/);
  });

  it('a wrong bodyLimit is refused when the endpoints or the decorators are created (before: silently a limit of 1 byte for "1 megabyte", none for "lots")', () => {
    expect(() => resolveServingSettings({ bodyLimit: '1 megabyte' })).toThrow(ConfigError);
    expect(resolveServingSettings({ bodyLimit: '2kb' }).bodyLimit).toBe('2kb');
    expect(resolveServingSettings({}).bodyLimit).toBe('1mb');
    // and by the NestJS decorators' interceptor (`@ChatJson({ bodyLimit })` & co.)
    expect(() => new ChatWireInterceptor('json', { bodyLimit: 'lots' })).toThrow(ConfigError);
    expect(() => new ChatWireInterceptor('json', { bodyLimit: '100kb' })).not.toThrow();
  });
});
