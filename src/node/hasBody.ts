import type { IncomingMessage } from 'node:http';

/**
 * Whether a node request has a body, as Express's `req.is()` and `express.json()` decide: a `Transfer-Encoding`
 * header, or a `Content-Length` that is a number (`0` included: an empty body is a body).
 *
 * @param req - The node request.
 * @returns Whether it has a body.
 */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && !Number.isNaN(Number(length)));
}
