import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The transcripts that end with `data: [DONE]` and contain no error (a well-formed, successful answer). */
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
] as const;

/** The failure cases: cut streams, in-band errors, a failed finish reason, malformed JSON. */
const FAILURES = [
  'eof-without-done',
  'eof-after-finish-reason',
  'insufficient-system-resource',
  'inband-error-event',
  'inband-error-payload',
  'malformed-json',
] as const;

/**
 * Names of the provider transcripts in `test/fixtures/streams/<name>.sse`: raw SSE bytes exactly as the provider
 * sends them (LF only). Successful streams end with `data: [DONE]\n\n`; the failure cases do not (or carry an error).
 */
export const FIXTURE_NAMES = [...SUCCESS, ...FAILURES] as const;

/** One of {@link FIXTURE_NAMES}. */
export type FixtureName = (typeof FIXTURE_NAMES)[number];

/** The transcripts that end with `data: [DONE]` and contain no error (a well-formed, successful answer). */
export const SUCCESS_FIXTURE_NAMES: readonly FixtureName[] = SUCCESS;

const DIR = join(__dirname, '..', 'fixtures', 'streams');

/** The raw bytes of `test/fixtures/streams/<name>.sse`. */
export function readFixture(name: FixtureName): Buffer {
  return readFileSync(join(DIR, `${name}.sse`));
}
