/**
 * The `token` query parameter of a request URL (`GET /chat/sse?token=…`, see `createSseTokens`).
 *
 * @param url - The request's URL, absolute (a web `Request`) or a path with its query (node's `req.url`).
 * @returns The one value; `''` when the parameter is given more than once (which no token verifies); `undefined` when
 *   absent.
 */
export function tokenParameter(url: string): string | undefined {
  if (!/[?&]token=/.test(url)) return undefined;
  const values = new URL(url, 'http://localhost').searchParams.getAll('token');
  return values.length === 1 ? values[0] : '';
}
