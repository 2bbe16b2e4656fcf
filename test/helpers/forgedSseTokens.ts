import { createSseTokens } from '../../src/node/createSseTokens';

/**
 * Tokens `GET /chat/sse?token=…` must refuse, made from a valid `token`: its signature flipped, a token of another
 * client signed with another secret, garbage, a payload without signature, and two tokens joined.
 */
export function forgedSseTokens(token: string): string[] {
  const [payload, signature = ''] = token.split('.');
  const flipped = `${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
  // a token for another client, signed with another secret
  const foreign = createSseTokens({ secret: 'another-secret-0123456789' }).issue('key:someone-else').token;
  return [flipped, foreign, 'not-a-token', `${payload}.`, `${token}.${token}`];
}
