import { takeDataEvents } from './takeDataEvents.js';

const LF = 10;
/** The length of `data: `. */
const PREFIX = 6;

/** The fast path of `parseSse`; see {@link createSseFastPath}. */
export interface SseFastPath {
  /** True while the general parser holds nothing: texts go through {@link SseFastPath.take} first. */
  readonly active: boolean;
  /**
   * Takes the one-line `data: ` events of `text` (after the rest of a pending one) and hands their data on. Returns
   * what the general parser must take from here on (the fast path is then inactive), or `undefined` when nothing is
   * left for it (also after `onData` stopped, or the pending event outgrew `maxEventSize`).
   */
  take(text: string): string | undefined;
  /** The general parser holds nothing again (a text it took ended with a blank line): the fast path resumes. */
  resume(): void;
}

/**
 * Creates the fast path of `parseSse`: the events every OpenAI-compatible provider sends — one `data: ` line and a
 * blank line, LF line ends — are cut out of the text directly ({@link takeDataEvents}); the first anything else (a
 * CR, a comment, a field, a second `data` line) hands the text, from the pending event on, to the general parser
 * until {@link SseFastPath.resume}.
 *
 * The start of a one-line event whose end has not come yet is kept (`pending`). The texts that continue it are only
 * appended to it, never read, until its end comes: a large text stays uncopied, and an event arriving in many small
 * texts stays linear (reading a character of a string built by `+=` would flatten it every time — hence the
 * `lineEnded` flag rather than a look at its last character).
 *
 * @param maxEventSize - The most UTF-16 units a pending event may hold (`onTooLarge` beyond).
 * @param onData - Receives each event's data; `false` stops (the subscriber closed, or the event failed).
 * @param onTooLarge - Called when the pending event outgrows `maxEventSize`.
 * @returns The fast path, active.
 */
export function createSseFastPath(
  maxEventSize: number,
  onData: (data: string) => boolean,
  onTooLarge: () => void,
): SseFastPath {
  let pending = ''; // the start of a one-line data event (or a few characters of `data: `)
  let lineEnded = false; // `pending` ends with the LF of its data line (the blank line is to come)
  let stopped = false;
  const take = (data: string): boolean => (stopped = !onData(data)) === false;

  /** Hands over to the general parser, from the pending event on. */
  const leave = (text: string): string => {
    path.active = false;
    text = pending + text;
    pending = '';
    lineEnded = false;
    return text;
  };

  /** Keeps `text` as (the start of) the pending event. */
  const keep = (text: string, ended: boolean): undefined => {
    pending = text;
    lineEnded = ended;
    if (pending.length > maxEventSize) onTooLarge();
    return undefined;
  };

  // `active` is a data property, not a getter: an object literal with a getter gets a hidden class of its own (one per
  // stream, ~0.6 KB each), which also makes every `fast.active` read of the process megamorphic.
  const path: { active: boolean } & Omit<SseFastPath, 'active'> = {
    active: true,
    resume() {
      path.active = true;
    },
    take(text) {
      stopped = false;
      if (text.indexOf('\r') !== -1) return leave(text); // CR line ends: the general parser's job
      let from = 0;
      if (pending.length >= PREFIX) {
        const lf = lineEnded ? -1 : text.indexOf('\n'); // where its data line ends here; -1: in `pending`
        if (!lineEnded && (lf === -1 || lf === text.length - 1)) return keep(pending + text, lf !== -1); // goes on
        if (text.charCodeAt(lf + 1) !== LF) return leave(text); // a second line
        const data = lf === -1 ? pending.slice(PREFIX, -1) : pending.slice(PREFIX) + text.slice(0, lf);
        pending = '';
        lineEnded = false;
        from = lf + 2;
        if (!take(data)) return undefined;
      } else if (pending !== '') {
        text = pending + text; // a few characters of `data: `
        pending = '';
      }
      const at = takeDataEvents(text, from, take);
      if (at === text.length || stopped) return undefined;
      if (at >= 0) {
        path.active = false;
        return at === 0 ? text : text.slice(at);
      }
      const rest = at === -1 ? text : text.slice(-at - 1);
      return keep(rest, rest.charCodeAt(rest.length - 1) === LF);
    },
  };
  return path;
}
