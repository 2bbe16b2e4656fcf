/**
 * The key of an `Authorization: Bearer <key>` header (one word, spaces or tabs around it allowed), as the key check
 * (`matchesBearerKey`) reads it and `POST /chat/token` signs it.
 *
 * @param authorization - The request's `Authorization` header, if any.
 * @returns The key, or `undefined` when the header is not one Bearer key.
 */
export function bearerKey(authorization: string | undefined): string | undefined {
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '')?.[1];
}
