const LF = 10;
const CR = 13;
const COLON = 58;

/** The running cost of the SSE event being built, fed the same text as the parser. See {@link createEventCostCounter}. */
export interface EventCostCounter {
  /**
   * Reads `text` (as the parser is fed it: a CR at its end is a whole line end, an LF completing it was dropped from
   * the next text) and returns the cost of the event being built after it: `0` while the event has at most
   * `freeLines` lines, else its characters so far plus `lineCost` for each line beyond `freeLines`.
   */
  push(text: string): number;
}

/**
 * Counts the lines of the SSE event being built as text arrives, so that `parseSse`'s `maxEventSize` bounds the
 * memory of an event whatever its lines look like: the parser joins `data` lines into one string, and each line costs
 * about 64 bytes of string bookkeeping beyond its characters, so one event of millions of `data: x` lines held about
 * 500 MB under a 16 MiB limit counted in characters alone.
 *
 * A line is any line but a comment (`:`…); a blank line ends the event (the count starts over). The common chunk — one
 * or more whole events, ending with a blank line — costs O(1): its last characters are checked and the count reset.
 * Other chunks are scanned for line ends with `indexOf`, as the parser scans them.
 *
 * @param freeLines - Lines an event may have before the per-line charge applies (so small events are judged by their
 *   characters alone, as before).
 * @param lineCost - What each further line costs, in UTF-16 units.
 */
export function createEventCostCounter(freeLines: number, lineCost: number): EventCostCounter {
  let lines = 0; // complete non-comment lines of the event being built
  let chars = 0; // characters of the event being built, line ends and field names included
  let inLine = false; // a line has started (in this text or an earlier one) and has not ended
  let counts = false; // the started line is not a comment

  /** True when `text` ends with a blank line: everything it holds is whole events. */
  const endsEvent = (text: string): boolean => {
    const end = text.length - 1;
    const last = text.charCodeAt(end);
    if (last !== LF && last !== CR) return false;
    const start = last === LF && text.charCodeAt(end - 1) === CR ? end - 1 : end; // the last line end (CRLF is one)
    if (start === 0) return !inLine; // the text is one line end: blank when nothing of a line came before it
    const before = text.charCodeAt(start - 1);
    return before === LF || before === CR;
  };

  return {
    push(text) {
      if (text.length === 0) return lines > freeLines ? chars + (lines - freeLines) * lineCost : 0;
      if (endsEvent(text)) {
        lines = 0;
        chars = 0;
        inLine = false;
        return 0;
      }
      const hasCr = text.indexOf('\r') !== -1;
      let blockStart = -1; // where the event being built starts in this text, when a blank line came in it
      let i = 0;
      while (i < text.length) {
        let end = text.indexOf('\n', i);
        if (hasCr) {
          const cr = text.indexOf('\r', i);
          if (cr !== -1 && (end === -1 || cr < end)) end = cr;
        }
        if (end === -1) {
          if (!inLine) {
            inLine = true;
            counts = text.charCodeAt(i) !== COLON;
          }
          break;
        }
        if (end > i && !inLine) {
          inLine = true;
          counts = text.charCodeAt(i) !== COLON;
        }
        const next = text.charCodeAt(end) === CR && text.charCodeAt(end + 1) === LF ? end + 2 : end + 1;
        if (inLine) {
          if (counts) lines += 1;
          inLine = false;
        } else {
          lines = 0; // a blank line: the event is dispatched, the next one starts after it
          blockStart = next;
        }
        i = next;
      }
      chars = blockStart === -1 ? chars + text.length : text.length - blockStart;
      return lines > freeLines ? chars + (lines - freeLines) * lineCost : 0;
    },
  };
}
