import { ConfigError } from '../core/errors.js';
import type { ServerSentEvent } from '../core/types.js';

const LINE_BREAK = /\r\n|\r|\n/;
const CR_OR_LF = /[\r\n]/;
const CR_LF_OR_NUL = /[\r\n\0]/;

/**
 * Writes one SSE frame (HTML §9.2.6), hono-style: the comment first (one `: …` line per line of it), then `event:`,
 * `id:`, `retry:`, then the data — a string split on CR, LF and CRLF into one `data:` line each, anything else as one
 * `data:` line of JSON — and the blank line that dispatches it. Each field is written when it is not `undefined`, so
 * `retry: 0` and `id: ''` (which resets the client's last event ID) survive.
 *
 * Fields that would break the framing are refused before anything is written.
 *
 * @param event - The frame to write.
 * @returns The frame's text, ending with `\n\n`.
 * @throws ConfigError when `event` contains CR or LF, `id` contains CR, LF or NUL, `retry` is not a non-negative
 *   integer, `data` has no JSON form (a function, a symbol), or the frame has no field at all.
 */
export function formatSseEvent(event: ServerSentEvent<unknown>): string {
  const { comment, event: type, id, retry, data } = event;
  if (type !== undefined && CR_OR_LF.test(type)) {
    throw new ConfigError(
      `ServerSentEvent \`event\` must not contain CR or LF, got ${JSON.stringify(type)}: use a one-line event name.`,
    );
  }
  if (id !== undefined && CR_LF_OR_NUL.test(id)) {
    throw new ConfigError(
      `ServerSentEvent \`id\` must not contain CR, LF or NUL, got ${JSON.stringify(id)}: use a one-line id.`,
    );
  }
  if (retry !== undefined && !(Number.isInteger(retry) && retry >= 0)) {
    throw new ConfigError(
      `ServerSentEvent \`retry\` must be a non-negative integer (milliseconds), got ${String(retry)}.`,
    );
  }
  let out = '';
  if (comment !== undefined) for (const line of comment.split(LINE_BREAK)) out += line === '' ? ':\n' : `: ${line}\n`;
  if (type !== undefined) out += `event: ${type}\n`;
  if (id !== undefined) out += `id: ${id}\n`;
  if (retry !== undefined) out += `retry: ${retry}\n`;
  if (data !== undefined) {
    if (typeof data === 'string') {
      for (const line of data.split(LINE_BREAK)) out += `data: ${line}\n`;
    } else {
      const json: string | undefined = JSON.stringify(data);
      if (json === undefined) {
        throw new ConfigError(
          `ServerSentEvent \`data\` has no JSON form (got a ${typeof data}): pass a string or a JSON value.`,
        );
      }
      out += `data: ${json}\n`;
    }
  }
  if (out === '') {
    throw new ConfigError('A ServerSentEvent needs at least one of `data`, `event`, `id`, `retry` or `comment`.');
  }
  return `${out}\n`;
}
