import { DEFAULT_TOKEN_TTL_MS } from './DEFAULT_TOKEN_TTL_MS.js';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../core/errors.js';

/** Options of {@link createSseTokens}. */
export interface SseTokensConfig {
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
   * Signs a token for this client.
   *
   * @param clientId - Who the token stands for (the hashed key, `key:…`, as the per-client limit counts it).
   * @param now - The current time in ms (tests).
   */
  issue(clientId: string, now?: number): SseToken;
  /**
   * Checks a token's signature (in constant time) and expiry.
   *
   * @returns The client it stands for, or `undefined` for a forged, malformed or expired token.
   */
  verify(token: string, now?: number): string | undefined;
}

const MAX_TOKEN_CHARS = 512;

/**
 * Short-lived tokens that let a browser's `EventSource` (which cannot send an `Authorization` header) call
 * `GET /chat/sse?token=…` without putting a long-lived key in a URL: `POST /chat/token`, behind the Bearer key,
 * answers one; it stands for the same client (the same per-client limit) until it expires.
 *
 * A token is `base64url(clientId.expiresAtMs).base64url(HMAC-SHA256(secret, that))`: nothing secret inside, nothing
 * stored; the signature is compared with `timingSafeEqual`.
 *
 * @param config - The secret and the lifetime.
 * @returns The issuer and checker.
 * @throws ConfigError for a secret shorter than 16 characters or a lifetime that is not a positive integer.
 */
export function createSseTokens(config: SseTokensConfig = {}): SseTokens {
  const ttlMs = config.ttlMs ?? DEFAULT_TOKEN_TTL_MS;
  if (!Number.isInteger(ttlMs) || ttlMs <= 0)
    throw new ConfigError(`tokenTtlMs must be a positive integer of milliseconds, got ${String(ttlMs)}.`);
  if (config.secret !== undefined && config.secret.length < 16) {
    throw new ConfigError(
      'tokenSecret must be at least 16 characters (a random string); leave it out for a per-process random secret.',
    );
  }
  const secret = config.secret ?? randomBytes(32).toString('base64url');
  const sign = (payload: string): Buffer => createHmac('sha256', secret).update(payload, 'utf8').digest();
  return {
    ttlMs,
    issue(clientId, now = Date.now()) {
      const expires = now + ttlMs;
      const payload = `${clientId}.${expires}`;
      return {
        token: `${Buffer.from(payload, 'utf8').toString('base64url')}.${sign(payload).toString('base64url')}`,
        expiresAt: new Date(expires).toISOString(),
      };
    },
    verify(token, now = Date.now()) {
      if (token.length > MAX_TOKEN_CHARS) return undefined;
      const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(token);
      if (match === null) return undefined;
      const payload = Buffer.from(match[1] ?? '', 'base64url').toString('utf8');
      const presented = Buffer.from(match[2] ?? '', 'base64url');
      const expected = sign(payload);
      if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
      const dot = payload.lastIndexOf('.');
      const expires = Number(payload.slice(dot + 1));
      if (dot <= 0 || !Number.isSafeInteger(expires) || expires <= now) return undefined;
      return payload.slice(0, dot);
    },
  };
}
