/**
 * `createSseTokens`: the tokens of `POST /chat/token` tell nothing about their key, have one spelling, expire, and
 * die with their key's removal from the configuration.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { ConfigError } from '../../src/core/errors';
import { createSseTokens } from '../../src/serve/createSseTokens';
import { respelledSignatures } from '../helpers/forgedSseTokens';

const SECRET = 'a-token-secret-of-16+chars';
const NOW = Date.UTC(2026, 10, 26);
/** base64url, the separator, and what base64 and a sloppy decoder would also take. */
const ALPHABET = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ '];

/** Every text a token carries, as written and as its base64url segments decode. */
const readings = (token: string): string[] => [
  token,
  ...token.split('.').flatMap((part) => {
    const bytes = Buffer.from(part, 'base64url');
    return [bytes.toString('utf8'), bytes.toString('hex'), bytes.toString('base64url')];
  }),
];

describe('createSseTokens', () => {
  it('carries no plain hash of the key: a guessed key cannot be checked against a token without the secret', () => {
    const key = 'key-a';
    const { token } = createSseTokens({ keys: [key], secret: SECRET }).issue(key, NOW);
    // What an attacker with a list of candidate keys tries: their unsalted digests, in the usual encodings.
    for (const algorithm of ['sha256', 'sha1', 'sha512', 'md5']) {
      const digest = createHash(algorithm).update(key, 'utf8').digest();
      for (const encoded of [digest.toString('base64url'), digest.toString('hex'), digest.toString('base64')]) {
        for (const text of readings(token)) expect(text).not.toContain(encoded.slice(0, 16));
      }
    }
    expect(token).not.toContain(key);
    // The key id depends on the secret: another secret, another id for the same key.
    const other = createSseTokens({ keys: [key], secret: `${SECRET}-other` }).issue(key, NOW).token;
    expect(other.split('.')[0]).not.toBe(token.split('.')[0]);
  });

  it('verifies its own token, for its key, until it expires', () => {
    const tokens = createSseTokens({ keys: ['key-a', 'key-b'], secret: SECRET, ttlMs: 1000 });
    const { token, expiresAt } = tokens.issue('key-b', NOW);
    expect(expiresAt).toBe(new Date(NOW + 1000).toISOString());
    expect(tokens.verify(token, NOW)).toBe('key-b');
    expect(tokens.verify(token, NOW + 999)).toBe('key-b');
    expect(tokens.verify(token, NOW + 1000)).toBeUndefined();
    // reusable until then, by design (an EventSource reconnects with the same URL)
    expect(tokens.verify(token, NOW + 1)).toBe('key-b');
  });

  it('refuses a token whose key is no longer configured, though its secret and signature are the same', () => {
    const { token } = createSseTokens({ keys: ['key-a', 'key-b'], secret: SECRET }).issue('key-b', NOW);
    expect(createSseTokens({ keys: ['key-a', 'key-b'], secret: SECRET }).verify(token, NOW)).toBe('key-b');
    expect(createSseTokens({ keys: ['key-a'], secret: SECRET }).verify(token, NOW)).toBeUndefined();
    expect(createSseTokens({ keys: ['key-a', 'key-c'], secret: SECRET }).verify(token, NOW)).toBeUndefined();
  });

  it('accepts the canonical spelling only: a signature whose last character has its unused bits set is refused', () => {
    const tokens = createSseTokens({ keys: ['key-a'], secret: SECRET });
    const { token } = tokens.issue('key-a', NOW);
    const respelled = respelledSignatures(token);
    expect(respelled).toHaveLength(3);
    for (const other of respelled) {
      expect(other).not.toBe(token);
      // the same bytes …
      expect(Buffer.from(other.split('.')[2] ?? '', 'base64url')).toEqual(Buffer.from(token.split('.')[2] ?? '', 'base64url'));
      // … another spelling: refused
      expect(tokens.verify(other, NOW)).toBeUndefined();
    }
    const [id, expiry, signature] = token.split('.');
    for (const other of [`${id}.0${expiry}.${signature}`, `${id}.${expiry}.${signature}=`, `${id}=.${expiry}.${signature}`, ` ${token}`, `${token}\n`]) {
      expect(tokens.verify(other, NOW)).toBeUndefined();
    }
  });

  it('refuses any token with one character changed (property)', () => {
    const tokens = createSseTokens({ keys: ['key-a', 'key-b'], secret: SECRET });
    const { token } = tokens.issue('key-a', NOW);
    fc.assert(
      fc.property(fc.nat(token.length - 1), fc.constantFrom(...ALPHABET), (at, char) => {
        fc.pre(token[at] !== char);
        expect(tokens.verify(`${token.slice(0, at)}${char}${token.slice(at + 1)}`, NOW)).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  it('signs a token only for a configured key, and checks its options', () => {
    const tokens = createSseTokens({ keys: ['key-a'], secret: SECRET });
    expect(() => tokens.issue('key-b')).toThrow(ConfigError);
    expect(() => createSseTokens({ keys: ['key-a'], secret: 'short' })).toThrow(/at least 16 characters/);
    expect(() => createSseTokens({ keys: ['key-a'], ttlMs: 0 })).toThrow(/tokenTtlMs must be a positive integer/);
    // without a secret, a random one per process: two signers do not accept each other's tokens
    const { token } = createSseTokens({ keys: ['key-a'] }).issue('key-a');
    expect(createSseTokens({ keys: ['key-a'] }).verify(token)).toBeUndefined();
  });
});
