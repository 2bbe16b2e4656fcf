import { copyExtraFields } from './copyExtraFields.js';
import { frozenCopy } from './frozenCopy.js';

/** Accumulates a choice's streamed `logprobs` (`{content: [...], refusal: [...]}` per chunk) without re-copying. */
export interface LogprobsAccumulator {
  /** Appends the items of one chunk's `logprobs` (other fields: the latest value wins). */
  push(logprobs: { content?: unknown; refusal?: unknown }): void;
  /**
   * A frozen `{content, refusal, …}` showing what was pushed so far. Its arrays are copied lazily, on first read, from
   * the append-only backing arrays (the first `length` items never change), so an unread view costs O(1).
   */
  view(): unknown;
}

const KNOWN = (key: string): boolean => key === 'content' || key === 'refusal';

/** Creates a {@link LogprobsAccumulator}. */
export function createLogprobsAccumulator(): LogprobsAccumulator {
  let content: unknown[] | null = null;
  let refusal: unknown[] | null = null;
  const extras: Record<string, unknown> = {};
  const prefix = (backing: unknown[] | null) => {
    if (backing === null) return () => null;
    const length = backing.length;
    let copy: readonly unknown[] | undefined;
    return () => (copy ??= Object.freeze(backing.slice(0, length)));
  };
  return {
    push(logprobs) {
      if (Array.isArray(logprobs.content)) for (const item of logprobs.content) (content ??= []).push(frozenCopy(item));
      if (Array.isArray(logprobs.refusal)) for (const item of logprobs.refusal) (refusal ??= []).push(frozenCopy(item));
      copyExtraFields(logprobs, KNOWN, extras);
    },
    view() {
      const readContent = prefix(content);
      const readRefusal = prefix(refusal);
      return Object.freeze({
        ...extras,
        get content() {
          return readContent();
        },
        get refusal() {
          return readRefusal();
        },
      });
    },
  };
}
