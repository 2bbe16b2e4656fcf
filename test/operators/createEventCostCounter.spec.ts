import fc from 'fast-check';
import { createEventCostCounter } from '../../src/operators/createEventCostCounter';

/** The reference: lines (not comments) of the event being built after `text`, and where it starts, by a plain scan. */
function reference(text: string): { lines: number; start: number } {
  let lines = 0;
  let start = 0; // of the event being built
  let lineStart = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '\n' && c !== '\r') continue;
    if (i === lineStart) start = (lines = 0, c === '\r' && text[i + 1] === '\n' ? i + 2 : i + 1);
    else if (text[lineStart] !== ':') lines += 1;
    if (c === '\r' && text[i + 1] === '\n') i += 1;
    lineStart = i + 1;
  }
  return { lines, start };
}

/**
 * Splits `text` at `cuts`, dropping an LF that completes a CR at the end of the previous piece (as parseSse does);
 * each piece with the length of the original text it ends. `dropped` receives the positions of the LFs dropped.
 */
function pieces(text: string, cuts: number[], dropped: number[]): Array<[string, number]> {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: Array<[string, number]> = [];
  let from = 0;
  for (const at of [...points, text.length]) {
    let piece = text.slice(from, at);
    if (from > 0 && text[from - 1] === '\r' && piece.startsWith('\n')) {
      piece = piece.slice(1);
      dropped.push(from);
    }
    if (piece !== '') out.push([piece, at]);
    from = at;
  }
  return out;
}

describe('createEventCostCounter', () => {
  it('is 0 up to freeLines lines, then the characters so far plus lineCost per further line', () => {
    const counter = createEventCostCounter(2, 10);
    expect(counter.push('data: a\ndata: b\n')).toBe(0); // 2 lines
    expect(counter.push('data: c\n')).toBe(24 + 10); // 3 lines, 24 characters
    expect(counter.push(': comment\n')).toBe(34 + 10); // comments are not charged, their characters are
    expect(counter.push('\n')).toBe(0); // the event is dispatched
    expect(counter.push('data: d\n')).toBe(0);
  });

  it('counts a line split over chunks once, and ends an event at a blank line of any line-end style', () => {
    const counter = createEventCostCounter(0, 100);
    expect(counter.push('da')).toBe(0);
    expect(counter.push('ta: x')).toBe(0);
    expect(counter.push('\r')).toBe(100 + 8); // one line: 8 characters so far
    expect(counter.push('\r')).toBe(0); // CR CR: a blank line
    expect(counter.push('data: y\r\ndata: z\r\n')).toBe(18 + 200);
    expect(counter.push('\r\n')).toBe(0);
    expect(counter.push('data: q\n\r')).toBe(0); // LF then CR: a blank line too
  });

  it('agrees with a plain scan of the text so far, however it is split', () => {
    const line = fc.constantFrom('data: x', 'data:', ': c', 'event: e', 'x', '', 'data: ' + 'y'.repeat(30));
    const end = fc.constantFrom('\n', '\r', '\r\n');
    const text = fc.array(fc.tuple(line, end).map(([l, e]) => l + e), { maxLength: 40 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, fc.array(fc.nat(2000), { maxLength: 8 }), fc.nat(5), (whole, cuts, freeLines) => {
        const counter = createEventCostCounter(freeLines, 7);
        const dropped: number[] = [];
        for (const [piece, at] of pieces(whole, cuts, dropped)) {
          const cost = counter.push(piece);
          const { lines, start } = reference(whole.slice(0, at));
          const chars = at - start - dropped.filter((p) => p >= start && p < at).length; // the characters it was fed
          expect(cost).toBe(lines > freeLines ? chars + (lines - freeLines) * 7 : 0);
        }
      }),
      { numRuns: 500 },
    );
  });
});
