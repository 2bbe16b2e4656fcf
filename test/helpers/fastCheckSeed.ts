/**
 * Jest setup: every fast-check property runs from one seed, so CI is deterministic; a counterexample found by a
 * longer or differently seeded run becomes a fixed test case. `FC_SEED=<integer>` picks another seed;
 * `FC_SEED=random` lets fast-check draw one per property (`npm run fuzz` does), printing it with any failure.
 */
import fc from 'fast-check';

const chosen = process.env['FC_SEED'] ?? '20261122';
if (chosen !== 'random') {
  const seed = Number(chosen);
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer or 'random', got ${JSON.stringify(chosen)}`);
  fc.configureGlobal({ seed });
}
