/** How many values one joined segment holds. */
const SEGMENT = 64;

/** The values of one stream in the local log, by position: append-only. @internal */
export interface LogValues {
  /** How many values it holds (positions `0 … length - 1`). */
  readonly length: number;
  /** Appends a value at position `length`. */
  push(value: string): void;
  /** The value at `position` (`0 ≤ position < length`), the same text that was pushed. */
  at(position: number): string;
}

/**
 * The values of one stream held compactly: every {@link SEGMENT} values are joined into one flat string, with each
 * value's end offset kept as a small integer; the newest values (fewer than a segment) are kept as they came.
 *
 * A logged value is typically a template's concatenation (a rope of several heap objects) and a stream holds
 * thousands of them for its retention; joined, a segment is one object for the garbage collector to mark or move, and
 * the values' own strings die young. A read slices the value back out of its segment (V8 shares the segment's
 * characters), so a resume gets exactly the text that was appended.
 *
 * ```text
 * push a, b, …   segments: ["a…b…" (64 values)]   ends: [3, 7, …] (per value, from its segment's start)   tail: [x, y]
 * at(p)          p < 64 × segments → segments[p / 64].slice(ends[p - 1] or 0, ends[p]);  else tail[p - 64 × segments]
 * ```
 *
 * @returns An empty value list.
 * @internal
 */
export function createLogValues(): LogValues {
  return new SegmentedValues();
}

/** {@link createLogValues}' list: a class, so every stream's list shares one V8 map (a literal with a getter would not). */
class SegmentedValues implements LogValues {
  length = 0;
  private readonly segments: string[] = [];
  private readonly ends: number[] = []; // of every value, sealed or not: its end in its segment
  private tail: string[] = [];
  private offset = 0; // the tail's length so far, in UTF-16 units

  push(value: string): void {
    this.offset += value.length;
    this.ends.push(this.offset);
    this.tail.push(value);
    this.length++;
    if (this.tail.length === SEGMENT) {
      this.segments.push(this.tail.join(''));
      this.tail = [];
      this.offset = 0;
    }
  }

  at(position: number): string {
    const segment = Math.floor(position / SEGMENT);
    if (segment >= this.segments.length) return this.tail[position - segment * SEGMENT] as string;
    const start = position % SEGMENT === 0 ? 0 : (this.ends[position - 1] as number);
    return (this.segments[segment] as string).slice(start, this.ends[position]);
  }
}
