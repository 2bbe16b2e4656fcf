/** A `Content-Type` header read by {@link parseMediaType}. */
export interface MediaType {
  /** `type/subtype`, lower-case, without parameters (`application/json`). */
  readonly type: string;
  /** The `charset` parameter, lower-case and unquoted, when given (its first occurrence). */
  readonly charset: string | undefined;
}

/** RFC 9110 §8.3.1: `type "/" subtype`, each a token. */
const TYPE = /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** One `; name=value` parameter (RFC 9110 §5.6.6), its value a token or a quoted string with `\` escapes. */
const PARAMETER = /;[ \t]*([^;=]*?)[ \t]*(?:=[ \t]*(?:"((?:[^"\\]|\\[\s\S])*)"?[^;]*|([^;]*)))?(?=;|$)/gy;

/**
 * Reads a `Content-Type` header as Express reads it (what `req.is()` and `express.json()` match): the
 * media type before the first `;`, spaces and tabs around it ignored, in lower case; and its `charset` parameter (the
 * first one; a quoted value unquoted; lower-case). A parameter without `=` is skipped.
 *
 * | header | type | charset |
 * | --- | --- | --- |
 * | `application/json` | `application/json` | — |
 * | `Application/JSON; Charset="UTF-8"` | `application/json` | `utf-8` |
 * | `application/json; foo; charset=latin1` | `application/json` | `latin1` |
 * | `application/json, text/plain` | — (not a media type) | |
 *
 * @param header - The header's value, or `undefined` when absent.
 * @returns The media type, or `undefined` when the header is absent, empty or not a media type.
 */
export function parseMediaType(header: string | undefined): MediaType | undefined {
  if (header === undefined) return undefined;
  const semicolon = header.indexOf(';');
  const type = (semicolon === -1 ? header : header.slice(0, semicolon)).replace(/^[ \t]+|[ \t]+$/g, '').toLowerCase();
  if (!TYPE.test(type)) return undefined;
  let charset: string | undefined;
  if (semicolon !== -1) {
    PARAMETER.lastIndex = semicolon;
    for (let match = PARAMETER.exec(header); match !== null && charset === undefined; match = PARAMETER.exec(header)) {
      const [, name, quoted, plain] = match;
      if (name?.toLowerCase() !== 'charset' || (quoted === undefined && plain === undefined)) continue;
      charset = (quoted === undefined ? (plain ?? '').replace(/[ \t]+$/, '') : quoted.replace(/\\([\s\S])/g, '$1')).toLowerCase();
    }
  }
  return { type, charset };
}
