const LF = 10;
const PREFIX = 'data: ';

/** `text` has `data: ` at `at` (char codes: `startsWith` is several times slower on a two-byte string). */
const isDataLine = (text: string, at: number): boolean =>
  text.charCodeAt(at) === 100 && // d
  text.charCodeAt(at + 1) === 97 && // a
  text.charCodeAt(at + 2) === 116 && // t
  text.charCodeAt(at + 3) === 97 && // a
  text.charCodeAt(at + 4) === 58 && // :
  text.charCodeAt(at + 5) === 32; // space

/**
 * The fast path of `parseSse`: takes, from the start of `text` (which must begin at an event boundary and hold no CR),
 * the events that are one `data: ` line ended by a blank line — the shape every OpenAI-compatible provider sends —
 * and hands their data to `onData`, which returns `false` to stop (the subscriber closed, or the event failed).
 *
 * What WHATWG parsing gives for such a block is exactly its data (one space after the colon removed), so nothing else
 * needs looking at; any other block (several lines, comments, `event`, `id`, `data:` without the space) is left to the
 * general parser.
 *
 * @param text - Decoded text without CR, at an event boundary at `from`.
 * @param from - Where to start.
 * @param onData - Receives each event's data; `false` stops the scan.
 * @returns `text.length` when every character was taken; else the index `at` where the taken events end, as `at`
 *   when the rest is for the general parser, or as `-(at + 1)` when the rest is the start of a one-line data event
 *   still waiting for its end (keep it and put it before the next text). A stop by `onData` returns the index after
 *   the stopping event.
 */
export function takeDataEvents(text: string, from: number, onData: (data: string) => boolean): number {
  const length = text.length;
  let at = from;
  while (at < length) {
    if (!isDataLine(text, at)) return length - at < PREFIX.length && PREFIX.startsWith(text.slice(at)) ? -(at + 1) : at;
    const end = text.indexOf('\n', at + PREFIX.length);
    if (end === -1 || end === length - 1) return -(at + 1); // the line or its blank line is still to come
    if (text.charCodeAt(end + 1) !== LF) return at; // a block of several lines
    const data = text.slice(at + PREFIX.length, end);
    at = end + 2;
    if (!onData(data)) return at;
  }
  return length;
}
