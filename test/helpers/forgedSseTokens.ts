import { createSseTokens } from '../../src/serve/createSseTokens';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * The other spellings of a token's signature that decode to the same bytes: its last base64url character with its
 * unused low bits (2 of the 6, for 32 bytes in 43 characters) set. A canonical-only check refuses them all.
 */
export function respelledSignatures(token: string): string[] {
  const last = BASE64URL.indexOf(token.at(-1) ?? '');
  return [1, 2, 3].map((bits) => `${token.slice(0, -1)}${BASE64URL[last | bits]}`);
}

/**
 * Tokens `GET /chat/sse?token=…` must refuse, made from a valid `token` (`<key id>.<expiry>.<signature>`): its
 * signature flipped, its signature re-spelled (non-canonical base64url), a token of another key signed with another
 * secret, garbage, a payload without signature, and two tokens joined.
 */
export function forgedSseTokens(token: string): string[] {
  const dot = token.lastIndexOf('.');
  const payload = token.slice(0, dot);
  const signature = token.slice(dot + 1);
  const flipped = `${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
  // a token for another key, signed with another secret
  const foreign = createSseTokens({ keys: ['someone-else'], secret: 'another-secret-0123456789' }).issue('someone-else').token;
  return [flipped, ...respelledSignatures(token), foreign, 'not-a-token', `${payload}.`, `${token}.${token}`];
}
