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
  const finished = new Map<number, boolean>();
  let open = 0;
  return {
    note(choices) {
      for (let position = 0; position < choices.length; position++) {
        const choice = choices[position] as { index?: unknown; finish_reason?: unknown } | null;
        if (typeof choice !== 'object' || choice === null) continue;
        const index = Number.isSafeInteger(choice.index) ? (choice.index as number) : position;
        const done = finished.get(index);
        const ends = typeof choice.finish_reason === 'string' && choice.finish_reason !== '';
        if (done === undefined) {
          finished.set(index, ends);
          if (!ends) open++;
        } else if (!done && ends) {
          finished.set(index, true);
          open--;
        }
      }
    },
    allFinished: () => finished.size > 0 && open === 0,
  };
}
