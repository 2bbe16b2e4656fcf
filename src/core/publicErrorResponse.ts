/**
 * The key under which an adapter attaches the response it decided for an error chatflux has no entry for — NestJS's
 * `HttpException`s with a 4xx or 503 status (a guard's 403, a throttler's 429, a 404) — so that `toErrorResponse`
 * keeps that status, `type` and `code`, and still redacts and caps the error's message. `Symbol.for`, so that it
 * works across realms and bundled copies.
 */
export const PUBLIC_ERROR_RESPONSE: unique symbol = Symbol.for('chatflux.publicErrorResponse');

/** What an error carries under {@link PUBLIC_ERROR_RESPONSE}: its status and the wire's `type` and `code`. */
export interface PublicErrorResponse {
  /** An HTTP error status (400–599). */
  status: number;
  /** The wire `type`, one of `toErrorResponse`'s (`invalid_request_error`, `rate_limit_error`, `server_error`, …). */
  type: string;
  /** The wire `code` (`forbidden`, `not_found`, `rate_limited`, …). */
  code: string;
}

/** The {@link PublicErrorResponse} `error` carries, when it carries a valid one. */
export function publicErrorResponseOf(error: unknown): PublicErrorResponse | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const response = (error as { [PUBLIC_ERROR_RESPONSE]?: Partial<PublicErrorResponse> })[PUBLIC_ERROR_RESPONSE];
  const { status, type, code } = response ?? {};
  if (!Number.isInteger(status) || (status as number) < 400 || (status as number) > 599) return undefined;
  return typeof type === 'string' && typeof code === 'string' ? { status: status as number, type, code } : undefined;
}
