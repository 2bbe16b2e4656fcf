import type { AnswerPlan } from './planAnswer.js';

/** Skips the first `prefix.length` UTF-16 units of the pieces, splitting the piece the prefix ends in. */
function* after(pieces: Iterable<string>, prefix: string): Generator<string> {
  let left = prefix.length;
  for (const piece of pieces) {
    if (left <= 0) {
      yield piece;
    } else if (piece.length <= left) {
      left -= piece.length;
    } else {
      yield piece.slice(left);
      left = 0;
    }
  }
}

/**
 * The plan of a continuation: the answer `plan` would give, less what the assistant prefix already holds. The text
 * goes on where the prefix ends (a prefix that is the plan's own beginning gives exactly the rest, so a cut answer
 * spliced with its continuation is the uncut answer); the reasoning is skipped entirely once the prefix holds text,
 * else continued after `reasoningPrefix`.
 *
 * @param plan - The plan of the request without its prefix message.
 * @param prefix - The assistant prefix's text.
 * @param reasoningPrefix - The assistant prefix's `reasoning_content` (`''` when none).
 * @returns A plan whose pieces continue the prefix.
 */
export function continuePlan(plan: AnswerPlan, prefix: string, reasoningPrefix: string): AnswerPlan {
  return {
    ...plan,
    choices: plan.choices.map((choice) => ({
      ...choice,
      reasoning: function* () {
        if (prefix === '') yield* after(choice.reasoning(), reasoningPrefix);
      },
      content: () => after(choice.content(), prefix),
    })),
  };
}
