import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The successful answers: well-formed, without errors, ending with `data: [DONE]` — or, for
 * `eof-after-finish-reason` (a provider that never sends `[DONE]`), at EOF after the `finish_reason`. One hand-made
 * file per provider quirk: Azure's opening `prompt_filter_results` chunk, OpenRouter's and Groq's `delta.reasoning`,
 * Groq's `x_groq.usage`, Mistral's content parts, OpenAI's refusal.
 */
const SUCCESS = [
  'deepseek-plain',
  'deepseek-keepalive-queue',
  'deepseek-reasoner',
  'deepseek-parallel-tools',
  'moonshot-plain',
  'moonshot-usage-twice',
  'moonshot-tool-no-index',
  'moonshot-n2',
  'kimi-builtin-search',
  'openai-usage-chunk-only',
  'eof-after-finish-reason',
  'azure-prompt-filter',
  'openrouter-reasoning',
  'groq-x-groq-usage',
  'mistral-thinking-parts',
  'openai-refusal',
] as const;

/** The failure cases: a cut stream, in-band errors, a failed finish reason, malformed JSON. */
const FAILURES = [
  'eof-without-done',
  'insufficient-system-resource',
  'inband-error-event',
  'inband-error-payload',
  'malformed-json',
] as const;

/**
 * Names of the provider transcripts in `test/fixtures/streams/<name>.sse`: raw SSE bytes exactly as the provider
 * sends them (LF only). Successful streams end with `data: [DONE]\n\n` (one at EOF after its `finish_reason`); the
 * failure cases are cut before a `finish_reason` or carry an error.
 */
export const FIXTURE_NAMES = [...SUCCESS, ...FAILURES] as const;

/** One of {@link FIXTURE_NAMES}. */
export type FixtureName = (typeof FIXTURE_NAMES)[number];

/** The successful answers (see `SUCCESS` above). */
export const SUCCESS_FIXTURE_NAMES: readonly FixtureName[] = SUCCESS;

const DIR = join(__dirname, '..', 'fixtures', 'streams');

/** The raw bytes of `test/fixtures/streams/<name>.sse`. */
export function readFixture(name: FixtureName): Buffer {
  return readFileSync(join(DIR, `${name}.sse`));
}
