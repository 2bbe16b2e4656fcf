import type { TimeoutPhase } from '../../src/core/errors';
import { DEFAULT_RETRY_POLICY } from '../../src/core/retryPolicy';
import { FAULT_MATRIX, MATRIX_RETRIES, MATRIX_TIMEOUTS, type Expectation, type FaultCase } from './faultMatrix';

/** The document that shows the generated table (its "Failure behaviour" section), by its path from the root. */
export const FAILURE_TABLE_DOC = 'docs/endpoints.md';

/** The markers around the generated table in {@link FAILURE_TABLE_DOC}. */
export const TABLE_START = '<!-- failure-behaviour:start -->';
export const TABLE_END = '<!-- failure-behaviour:end -->';

/** Every timeout phase (a compile error here when one is added). */
const PHASES = Object.keys({
  connect: true,
  headers: true,
  first_chunk: true,
  idle: true,
  total: true,
} satisfies Record<TimeoutPhase, true>) as TimeoutPhase[];

const list = (items: readonly (string | number)[], quote = false): string => {
  const words = items.map((item) => (quote ? `\`${item}\`` : String(item)));
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
};

/**
 * What the gateway retries, said from the retry policy itself (`DEFAULT_RETRY_POLICY`, which the gateway uses with
 * `CHATFLUX_MAX_RETRIES` as its count), so the endpoints guide cannot drift from it.
 */
export function formatRetryRule(policy = DEFAULT_RETRY_POLICY): string[] {
  const retried = PHASES.filter((phase) => policy.timeoutPhases.includes(phase));
  const notRetried = PHASES.filter((phase) => !policy.timeoutPhases.includes(phase));
  const plural = (phases: TimeoutPhase[]): string => `phase${phases.length === 1 ? '' : 's'}`;
  const text = [
    `Retried while nothing was sent: statuses ${list(policy.statuses)}, the provider error types`,
    `(${list(policy.upstreamTypes, true)}), connection failures, and timeouts of the`,
    `${list(retried, true)} ${plural(retried)}; a server's wait hint is obeyed up to ${policy.maxRetryAfterMs / 1000} s`,
    `(a longer one is surfaced). Not retried: statuses ${list(policy.neverStatuses)}, quota errors, and timeouts of the`,
    `${list(notRetried, true)} ${plural(notRetried)} (the request was sent: the provider may already have queued it,`,
    'and a retry would queue it again).',
  ].join(' ');
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if (last >= 0 && `${lines[last]} ${word}`.length <= 118) lines[last] = `${lines[last]} ${word}`;
    else lines.push(word);
  }
  return lines;
}

const cell = (e: Expectation): string => {
  if (e.kind === 'complete') return '200, complete answer';
  const said = e.message === undefined ? '' : ` ("${e.message}")`;
  if (e.kind === 'in-band') return `200, chunks so far, then in-band error \`${e.code}\`${said}`;
  return `${e.status} \`${e.code}\`${said}${e.retryAfter === undefined ? '' : ` + \`Retry-After: ${e.retryAfter}\``}`;
};

/**
 * Renders the fault matrix as the endpoints guide's "Failure behaviour" block (markers included): fault → what the client of
 * each endpoint sees.
 */
export function formatFailureTable(matrix: readonly FaultCase[] = FAULT_MATRIX): string {
  const rows = matrix.map(
    (c) =>
      `| ${c.fault} | \`${c.scenario}\` | ${cell(c.expect['/chat/json'])} | ${cell(c.expect['/chat/stream'])} | ${cell(c.expect['/chat/sse'])} |`,
  );
  return [
    TABLE_START,
    '<!-- generated from test/faults/faultMatrix.ts by `npm run failure-table -- --write`; checked by test/faults/faultMatrix.spec.ts -->',
    '',
    `What a client sees when the upstream misbehaves, as tested through a real gateway in front of the emulator (\`test/faults/\`), with`,
    `\`CHATFLUX_MAX_RETRIES=${MATRIX_RETRIES}\`, \`CHATFLUX_FIRST_CHUNK_TIMEOUT_MS=${MATRIX_TIMEOUTS.firstChunkMs}\`, \`CHATFLUX_IDLE_TIMEOUT_MS=${MATRIX_TIMEOUTS.idleMs}\`.`,
    "An error before the first chunk is a real HTTP status with the endpoint's error body; after the first chunk the stream",
    'is already committed with 200 and ends with the in-band error frame (NDJSON `{"error":…,"done":true}`; SSE',
    '`event: error` then `data: [DONE]`) — never a truncated answer presented as complete, never repeated text.',
    ...formatRetryRule(),
    '',
    '| upstream fault | emulator scenario | `/chat/json` | `/chat/stream` (NDJSON) | `/chat/sse` |',
    '|---|---|---|---|---|',
    ...rows,
    TABLE_END,
  ].join('\n');
}

/** A document with its failure block replaced by `block` (appended at the end when the markers are missing). */
export function replaceFailureTable(doc: string, block: string): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start === -1 || end === -1 || end < start)
    return `${doc.replace(/\n*$/, '\n')}\n## Failure behaviour\n\n${block}\n`;
  return `${doc.slice(0, start)}${block}${doc.slice(end + TABLE_END.length)}`;
}

/** The failure block of a document (markers included), or undefined without markers. */
export function readFailureTable(doc: string): string | undefined {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  return start === -1 || end === -1 || end < start ? undefined : doc.slice(start, end + TABLE_END.length);
}
