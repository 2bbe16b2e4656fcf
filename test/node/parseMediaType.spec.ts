/**
 * `parseMediaType`: a `Content-Type` header read as `type-is` and body-parser read it — the media type that
 * `assertJsonContentType` compares with `application/json` (415 otherwise), and the `charset` the body reader checks.
 * The table is what `type-is@2` (`typeIs.is(header, ['application/json'])`) and `content-type@2` (the charset
 * parameter) answered for the same headers.
 */
import { RequestError } from '../../src/core/errors';
import { assertJsonContentType } from '../../src/serve/assertJsonContentType';
import { parseMediaType } from '../../src/serve/parseMediaType';

describe('parseMediaType', () => {
  it.each<[string | undefined, string | undefined, string | undefined]>([
    ['application/json', 'application/json', undefined],
    ['Application/JSON', 'application/json', undefined], // any case
    [' application/json ', 'application/json', undefined], // spaces around
    ['\tapplication/json\t;\tcharset=utf-8\t', 'application/json', 'utf-8'], // tabs too
    ['application/json; charset=utf-8', 'application/json', 'utf-8'],
    ['application/json;charset=UTF-8', 'application/json', 'utf-8'], // lower-case
    ['application/json ; charset = utf-8 ', 'application/json', 'utf-8'], // spaces around `;` and `=`
    ['application/json; charset="utf-8"', 'application/json', 'utf-8'], // quoted
    ['application/json; charset="ut\\f-8"', 'application/json', 'utf-8'], // a quoted-pair
    ['application/json; charset="a;b"; x=1', 'application/json', 'a;b'], // `;` inside quotes
    ['application/json; x="a;charset=b"; charset=c', 'application/json', 'c'], // not a parameter inside quotes
    ['application/json; charset=utf-8; charset=latin1', 'application/json', 'utf-8'], // the first one
    ['application/json; foo; charset=latin1', 'application/json', 'latin1'], // a parameter without `=` skipped
    ['application/json; charset=UTF-16', 'application/json', 'utf-16'],
    ['application/json; charset=', 'application/json', ''],
    ['application/json; charset', 'application/json', undefined],
    ['application/json;', 'application/json', undefined],
    ['application/vnd.api+json', 'application/vnd.api+json', undefined],
    ['text/json', 'text/json', undefined],
    ['application/jsonx', 'application/jsonx', undefined],
    ['application/json, text/plain', undefined, undefined], // not one media type
    ['application', undefined, undefined],
    ['application/', undefined, undefined],
    ['/json', undefined, undefined],
    ['', undefined, undefined],
    [undefined, undefined, undefined], // absent
  ])('%j → %j, charset %j', (header, type, charset) => {
    const parsed = parseMediaType(header);
    expect(parsed?.type).toBe(type);
    if (type !== undefined) expect(parsed?.charset).toBe(charset);
  });
});

describe('assertJsonContentType (the endpoints’ 415, by parseMediaType)', () => {
  it.each<[string | undefined, boolean]>([
    ['application/json', true],
    ['Application/JSON; charset=utf-8', true],
    ['application/json; charset=latin1', true], // the charset is the body reader's 415, after the key and the limit
    ['application/vnd.api+json', false], // type-is matched the exact type only
    ['text/json', false],
    ['text/plain', false],
    ['application/json, text/plain', false],
    ['', false],
    [undefined, false],
  ])('%j: JSON %s', (header, json) => {
    const check = (): void => assertJsonContentType(header, true);
    if (json) expect(check).not.toThrow();
    else expect(check).toThrow(expect.objectContaining({ code: 'unsupported_media_type' }) as RequestError);
  });

  it('application/json without a body is a 400 that says so, not a 415', () => {
    expect(() => assertJsonContentType('application/json', false)).toThrow(expect.objectContaining({ code: 'invalid_request', message: expect.stringMatching(/has no body/) as string }) as RequestError);
  });
});
