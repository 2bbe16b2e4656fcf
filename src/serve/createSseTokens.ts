import { DEFAULT_TOKEN_TTL_MS } from './DEFAULT_TOKEN_TTL_MS.js';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../core/errors.js';

/** Options of {@link createSseTokens}. */
export interface SseTokensConfig {
  /**
   * The keys a token may stand for (the endpoints' `apiKeys`). A token stands for one of them, and is refused once its
   * key is no longer among them (a key removed from the configuration, the secret kept).
   */
  keys: readonly string[];
  /**
   * The HMAC-SHA256 secret the tokens are signed with (at least 16 characters). Absent: a random secret of this
   * process — tokens then die with it, and do not pass between the instances of a cluster (give them one secret).
   */
  secret?: string;
  /** How long a token is valid, in ms. Default 60000. */
  ttlMs?: number;
}

/** A token as `POST /chat/token` answers it. */
export interface SseToken {
  /** The token, for `GET /chat/sse?token=…`. */
  token: string;
  /** When it stops being accepted (ISO 8601). */
  expiresAt: string;
}

/** Short-lived signed tokens for `EventSource` (see {@link createSseTokens}). */
export interface SseTokens {
  /** How long a token is valid, in ms. */
  readonly ttlMs: number;
  /**
   * Signs a token that stands for `key`.
   *
   * @param key - The Bearer key the token request was accepted with: one of `config.keys`.
   * @param now - The current time in ms (tests).
   * @throws ConfigError when `key` is not one of `config.keys` (check the request's key first).
   */
  issue(key: string, now?: number): SseToken;
  /**
   * Checks a token: its encoding (canonical only), its signature (in constant time), its expiry, and that its key is
   * still one of `config.keys`.
   *
   * @returns The key it stands for, or `undefined` for a forged, malformed, non-canonical or expired token, or one
   *   whose key is no longer configured.
   */
  verify(token: string, now?: number): string | undefined;
}

/** `<key id: 22>.<expiry ms: 1–16 digits>.<signature: 43>`, base64url without padding; anything else is refused. */
const TOKEN = /^([A-Za-z0-9_-]{22})\.([1-9][0-9]{0,15})\.([A-Za-z0-9_-]{43})$/;
/** Domain separation: a key id and a signature are HMACs of the one secret over texts that cannot be confused. */
const KEY_ID = 'chatflux sse-token key-id\n';
const SIGNED = 'chatflux sse-token v1\n';

/**
 * Short-lived tokens that let a browser's `EventSource` (which cannot send an `Authorization` header) call
 * `GET /chat/sse?token=…` without putting a long-lived key in a URL: `POST /chat/token`, behind the Bearer key,
 * answers one; until it expires it stands for that key (its client, for the per-client limit).
 *
 * A token is `<key id>.<expiry>.<signature>`:
 *
 * 1. The key id is `HMAC-SHA256(secret, key)` (cut to 16 bytes, base64url): it names the key among the configured ones
 *    and tells nothing about it without the secret (a plain hash of a key can be tried against guesses offline; tokens
 *    end up in access logs and browser history).
 * 2. The expiry is the time in ms, in decimal; the signature is `HMAC-SHA256(secret, key id and expiry)`, compared
 *    with `timingSafeEqual`. Nothing is stored.
 * 3. Only the canonical text is accepted: base64url without padding whose unused last bits are zero, a decimal
 *    without leading zeros — one token, one spelling.
 * 4. A token whose key is no longer configured is refused, even with its signature valid (the key was removed, the
 *    secret kept).
 *
 * A token is not single-use: until it expires it opens any number of requests of its key (by design: an
 * `EventSource` reconnects with the same URL).
 *
 * @param config - The keys, the secret and the lifetime.
 * @returns The issuer and checker.
 * @throws ConfigError for a secret shorter than 16 characters or a lifetime that is not a positive integer.
 */
export function createSseTokens(config: SseTokensConfig): SseTokens {
  const ttlMs = config.ttlMs ?? DEFAULT_TOKEN_TTL_MS;
  if (!Number.isInteger(ttlMs) || ttlMs <= 0)
    throw new ConfigError(`tokenTtlMs must be a positive integer of milliseconds, got ${String(ttlMs)}.`);
  if (config.secret !== undefined && config.secret.length < 16) {
    throw new ConfigError(
      'tokenSecret must be at least 16 characters (a random string); leave it out for a per-process random secret.',
    );
  }
  const secret = config.secret ?? randomBytes(32).toString('base64url');
  const hmac = (text: string): Buffer => createHmac('sha256', secret).update(text, 'utf8').digest();
  const keyId = (key: string): string => hmac(KEY_ID + key).subarray(0, 16).toString('base64url');
  const keysById = new Map(config.keys.map((key) => [keyId(key), key]));
  return {
    ttlMs,
    issue(key, now = Date.now()) {
      const id = keyId(key);
      if (keysById.get(id) !== key) throw new ConfigError('issue a token only for one of the configured keys: check the request\'s key first.');
      const expires = now + ttlMs;
      const payload = `${id}.${expires}`;
      return { token: `${payload}.${hmac(SIGNED + payload).toString('base64url')}`, expiresAt: new Date(expires).toISOString() };
    },
    verify(token, now = Date.now()) {
      const match = TOKEN.exec(token);
      if (match === null) return undefined;
      const [, id = '', expiry = '', signature = ''] = match;
      const presented = Buffer.from(signature, 'base64url');
      // Canonical only: 43 characters carry 258 bits for 256; a last character with its 2 unused bits set decodes to
      // the same bytes, and is refused.
      if (presented.toString('base64url') !== signature) return undefined;
      const expected = hmac(`${SIGNED}${id}.${expiry}`);
      if (!timingSafeEqual(presented, expected)) return undefined;
      if (Number(expiry) <= now) return undefined;
      return keysById.get(id); // the signed id of a key no longer configured: refused
    },
  };
}
