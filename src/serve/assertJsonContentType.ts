import { RequestError } from '../core/errors.js';
import { parseMediaType } from './parseMediaType.js';

/**
 * The media-type check of the chat endpoints' POST bodies, on the header alone, so the node serving core and the web
 * handlers refuse with the same error. The type matches as `req.is('application/json')` matches it
 * (`parseMediaType`: any case, parameters such as `charset` allowed; the charset itself is the body reader's check).
 * A request that names `application/json` but has no body (no `Content-Length`, no `Transfer-Encoding`: `curl -X POST`
 * without `-d`) is refused as such, with a 400 — a 415 would tell its client to fix a header that is right.
 *
 * @param contentType - The request's `Content-Type` header, if any.
 * @param hasBody - Whether the request has a body (`hasBody(req)` on node, `request.body !== null` on the web).
 * @throws RequestError `unsupported_media_type` (415) unless it is `application/json`; `invalid_request` (400) when it
 *   is but the request has no body.
 */
export function assertJsonContentType(contentType: string | undefined, hasBody: boolean): void {
  if (parseMediaType(contentType)?.type !== 'application/json') {
    throw new RequestError('unsupported_media_type', 'the request body must be JSON (Content-Type: application/json)');
  }
  if (!hasBody) throw new RequestError('invalid_request', 'the request has no body: send the chat request as its JSON body');
}
