/**
 * No fragment of a key anywhere: every string field that reaches a client or a log is redacted, and redacted before
 * it is cut (a cut first leaves most of a key that no rule recognises any more).
 */
import { UpstreamHttpError, UpstreamStreamError } from '../../src/core/errors';
import { redactSecrets } from '../../src/core/redactSecrets';
import { toErrorResponse } from '../../src/core/toErrorResponse';
import { upstreamStreamErrorFrom } from '../../src/operators/upstreamStreamErrorFrom';
import { toUpstreamHttpError } from '../../src/source/toUpstreamHttpError';

/** A 35-character key of no recognisable shape (only the literal rule can catch it). */
const KEY = 'moonKEY0123456789abcdefghijklmnopqr';
/** A provider-shaped key (the `sk-` rule catches it whole, not a start of it shorter than 6 characters after `sk-`). */
const SK_KEY = 'sk-0123456789abcdefghijklmnopqrstuvw';

/** Every run of 8 characters of `secret` found in `text` (8: short enough to catch a telling fragment). */
const fragments = (text: string, secret: string): string[] => {
  const found: string[] = [];
  for (let i = 0; i + 8 <= secret.length; i++) if (text.includes(secret.slice(i, i + 8))) found.push(secret.slice(i, i + 8));
  return found;
};
const everything = (value: unknown): string => JSON.stringify(value, (_key, v: unknown) => (v instanceof Error ? { ...v, message: v.message } : v));

describe('redaction of every field', () => {
  it('an upstream HTTP error quoting the key in error.code and error.type: not in the error, the wire or the log', () => {
    const body = JSON.stringify({ error: { message: 'no', type: `type ${KEY}`, code: KEY } });
    const error = toUpstreamHttpError({ status: 400, headers: {}, body }, [KEY]);
    expect(fragments(everything(error), KEY)).toEqual([]);
    const { body: wire } = toErrorResponse(error, { secrets: [KEY] });
    expect(fragments(JSON.stringify(wire), KEY)).toEqual([]);
    expect(wire.code).toBe('[redacted]');
  });

  it('toErrorResponse redacts a code and a type-as-code however the error was built', () => {
    const http = new UpstreamHttpError(502, 'upstream failed', { upstreamType: `${SK_KEY}` });
    const stream = new UpstreamStreamError('in-band failure', { upstreamCode: `bad ${KEY}` });
    for (const error of [http, stream]) {
      const { body } = toErrorResponse(error, { secrets: [KEY] });
      expect(fragments(body.code, KEY)).toEqual([]);
      expect(fragments(body.code, SK_KEY)).toEqual([]);
    }
  });

  it('caps a provider code at 100 characters, after redacting it', () => {
    const { body } = toErrorResponse(new UpstreamStreamError('x', { upstreamCode: `${'c'.repeat(95)}${KEY}` }), { secrets: [KEY] });
    expect(body.code.startsWith('c'.repeat(95))).toBe(true);
    expect(body.code.length).toBeLessThan(130);
    expect(fragments(body.code, KEY)).toEqual([]);
  });

  it.each([
    ['a literal key', KEY],
    ['an sk- key', SK_KEY],
  ])('a plain-text error body with %s across the 200- and 1000-character cuts leaks no fragment', (_name, key) => {
    for (const cut of [200, 1000]) {
      for (let offset = cut - key.length + 1; offset < cut; offset++) {
        const text = `${'e'.repeat(offset)}${key} and more text after the key`;
        const error = toUpstreamHttpError({ status: 500, headers: {}, body: text }, [key]);
        const wire = toErrorResponse(error, { secrets: [key] });
        expect({ offset, leaked: fragments(everything(error) + JSON.stringify(wire), key) }).toEqual({ offset, leaked: [] });
      }
    }
  });

  it('an in-band error with the key in its message, type and code, at any place around the 1000-character cut', () => {
    for (let offset = 1000 - KEY.length + 1; offset < 1000; offset += 3) {
      const message = `${'m'.repeat(offset)}${KEY}`;
      const error = upstreamStreamErrorFrom({ error: { message, type: KEY, code: KEY } }, '', [KEY]);
      expect(fragments(everything(error) + JSON.stringify(toErrorResponse(error)), KEY)).toEqual([]);
    }
  });
});

describe('redactSecrets', () => {
  it('replaces the longer of two overlapping secrets whole (a shorter one first left its tail behind)', () => {
    const short = KEY.slice(0, 10);
    expect(redactSecrets(`key ${KEY}.`, [short, KEY])).toBe('key [redacted].');
  });

  it('replaces a start of a known key (6 characters or more) at the very end of a text cut by a size limit', () => {
    expect(redactSecrets(`body cut here: ${KEY.slice(0, 27)}`, [KEY])).toBe('body cut here: [redacted]');
    expect(redactSecrets(`ends in ${KEY.slice(0, 6)}`, [KEY])).toBe('ends in [redacted]');
    expect(redactSecrets(`ends in ${KEY.slice(0, 5)}`, [KEY])).toBe(`ends in ${KEY.slice(0, 5)}`);
  });
});
