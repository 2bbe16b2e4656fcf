import { matchesBearerKey } from '../../src/serve/matchesBearerKey';

describe('matchesBearerKey', () => {
  const keys = ['key-one-123', 'key-two-456'];

  it('accepts any configured key as a Bearer token (scheme case-insensitive)', () => {
    expect(matchesBearerKey('Bearer key-one-123', keys)).toBe(true);
    expect(matchesBearerKey('bearer key-two-456', keys)).toBe(true);
    expect(matchesBearerKey('BEARER  key-two-456 ', keys)).toBe(true);
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['another scheme', 'Basic key-one-123'],
    ['the bare key', 'key-one-123'],
    ['a prefix of a key', 'Bearer key-one-12'],
    ['a key with a suffix', 'Bearer key-one-1234'],
    ['two tokens', 'Bearer key-one-123 key-two-456'],
    ['an empty token', 'Bearer '],
  ])('refuses %s', (_name, header) => {
    expect(matchesBearerKey(header, keys)).toBe(false);
  });

  it('refuses everything when no key is configured', () => {
    expect(matchesBearerKey('Bearer anything', [])).toBe(false);
  });
});
