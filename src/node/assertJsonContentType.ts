import typeIs from 'type-is';
import { RequestError } from '../core/errors.js';

const JSON_TYPE = 'application/json';

/**
 * The media-type check of the chat endpoints' POST bodies, on the header alone, so the node serving core and the web
 * handlers refuse with the same error. Matches as `type-is` matches a request: a request without a body never passes.
 *
 * @param contentType - The request's `Content-Type` header, if any.
 * @param hasBody - Whether the request has a body (`typeIs.hasBody(req)` on node, `request.body !== null` on the web).
 * @throws RequestError `unsupported_media_type` (415) unless it is `application/json`.
 */
export function assertJsonContentType(contentType: string | undefined, hasBody: boolean): void {
  if (hasBody && typeIs.is(contentType ?? '', [JSON_TYPE]) === JSON_TYPE) return;
  throw new RequestError('unsupported_media_type', 'the request body must be JSON (Content-Type: application/json)');
}
