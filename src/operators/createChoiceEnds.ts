/** Which choices of a stream have started, and whether each has its `finish_reason`. */
export interface ChoiceEnds {
  /** Notes one chunk's choices (by `index`, else position); a non-empty string `finish_reason` ends its choice. */
  note(choices: readonly unknown[]): void;
  /** True when at least one choice started and every started choice has ended. */
  allFinished(): boolean;
}

/**
 * Creates a {@link ChoiceEnds}: how `decodeChunk` tells a complete answer that lacks `[DONE]` from a cut one. Works
 * on unvalidated chunks too (anything that is not a choice object is skipped). O(choices of the chunk) per chunk,
 * no allocation once a choice is known.
 */
export function createChoiceEnds(): ChoiceEnds {
  // Small indexes (every real stream) live in an array; anything else in a map.
  const small: Array<boolean | undefined> = [];
  const large = new Map<number, boolean>();
  let started = 0;
  let open = 0;
  return {
    note(choices) {
      for (let position = 0; position < choices.length; position++) {
        const choice = choices[position] as { index?: unknown; finish_reason?: unknown } | null;
        if (typeof choice !== 'object' || choice === null) continue;
        const raw = choice.index;
        const index = typeof raw === 'number' && Number.isSafeInteger(raw) ? raw : position;
        const inArray = index >= 0 && index < 256;
        const done = inArray ? small[index] : large.get(index);
        if (done === true) continue;
        const ends = typeof choice.finish_reason === 'string' && choice.finish_reason !== '';
        if (done === undefined) {
          started++;
          if (!ends) open++;
        } else if (!ends) continue;
        else open--;
        if (inArray) small[index] = ends;
        else large.set(index, ends);
      }
    },
    allFinished: () => started > 0 && open === 0,
  };
}
