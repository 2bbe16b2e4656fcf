/**
 * The fault matrix as DATA: each upstream fault the emulator can inject, and what a client of each gateway endpoint
 * sees. The same table drives `faultMatrix.spec.ts` (every row × every endpoint through a real gateway) and renders
 * the "Failure behaviour" table of docs/endpoints.md (`scripts/failure-table.ts`, checked by the spec).
 */
import type { Endpoint } from '../helpers/wireAssertions';

/** The gateway's deadlines during the matrix (short, with a margin for a loaded 2-core CI machine). */
export const MATRIX_TIMEOUTS = { firstChunkMs: 1500, idleMs: 1000 } as const;
/** Retries of a transient failure before the first chunk (`CHATFLUX_MAX_RETRIES`). */
export const MATRIX_RETRIES = 1;

/** What a client of one endpoint sees. */
export type Expectation =
  /** 200 and the complete, correct answer (the same content as a healthy request). */
  | { kind: 'complete' }
  /** An error before anything was committed: this status and code (and message, when given) in the endpoint's error format. */
  | { kind: 'error'; status: number; code: string; retryAfter?: string; message?: string }
  /** 200, some chunks (a prefix of the correct answer), then the endpoint's in-band error frame with this code (and message). */
  | { kind: 'in-band'; code: string; message?: string };

/** One upstream fault. */
export interface FaultCase {
  /** How the failure table names the fault. */
  fault: string;
  /** The provider dialect the emulator speaks (DeepSeek sends no `Retry-After`; the openai dialect does). */
  dialect: 'deepseek' | 'openai';
  /** The emulator scenario (the model-name suffix `deepseek-chat#<scenario>`). */
  scenario: string;
  /** Per endpoint. */
  expect: Record<Endpoint, Expectation>;
  /** The complete answer carries an extra ~10 MB piece (the answer is otherwise the healthy one). */
  hugePiece?: boolean;
  /**
   * Upstream attempts of each faulty request (checked by the spec, on every endpoint): 1 + `MATRIX_RETRIES` when the
   * fault is retried, 1 when it is not — the failure table's retry sentence, observed.
   */
  attempts?: number;
}

const all = (e: Expectation): Record<Endpoint, Expectation> => ({ '/chat/json': e, '/chat/stream': e, '/chat/sse': e });
/** The json endpoint fails with a status (nothing was sent yet); the streams had committed and end in-band. */
const afterCommit = (status: number, code: string, message?: string): Record<Endpoint, Expectation> => {
  const said = message === undefined ? {} : { message };
  return {
    '/chat/json': { kind: 'error', status, code, ...said },
    '/chat/stream': { kind: 'in-band', code, ...said },
    '/chat/sse': { kind: 'in-band', code, ...said },
  };
};
const complete: Expectation = { kind: 'complete' };

/** Every fault, with what each endpoint's client sees. */
export const FAULT_MATRIX: readonly FaultCase[] = [
  { fault: 'none (healthy)', dialect: 'deepseek', scenario: 'pace=1', expect: all(complete) },
  {
    fault: '429 with `Retry-After: 1`, every attempt',
    dialect: 'openai',
    scenario: 'status=429;retry-after=1',
    expect: all({ kind: 'error', status: 429, code: 'rate_limit_exceeded', retryAfter: '1' }),
  },
  {
    fault: '429 without `Retry-After` (DeepSeek), every attempt',
    dialect: 'deepseek',
    scenario: 'status=429',
    expect: all({ kind: 'error', status: 429, code: 'rate_limit_exceeded' }),
  },
  {
    fault: '429 with a wait longer than the retry policy accepts (`Retry-After: 120`)',
    dialect: 'openai',
    scenario: 'status=429;retry-after=120',
    expect: all({ kind: 'error', status: 429, code: 'rate_limit_exceeded', retryAfter: '120' }),
    attempts: 1,
  },
  {
    fault: '429 once, then healthy (retried)',
    dialect: 'openai',
    scenario: 'fail-first=1:429;retry-after=1',
    expect: all(complete),
  },
  {
    fault: '500, every attempt',
    dialect: 'deepseek',
    scenario: 'status=500',
    expect: all({ kind: 'error', status: 502, code: 'internal_error' }),
    attempts: 1 + MATRIX_RETRIES,
  },
  {
    fault: '502, every attempt',
    dialect: 'deepseek',
    scenario: 'status=502',
    // DeepSeek documents no 502: the emulator's neutral body (type `bad_gateway_error`, no code).
    expect: all({ kind: 'error', status: 502, code: 'bad_gateway_error' }),
  },
  {
    fault: '503 (overloaded), every attempt',
    dialect: 'deepseek',
    scenario: 'status=503',
    expect: all({ kind: 'error', status: 502, code: 'server_overloaded' }),
  },
  {
    fault: '503 once, then healthy (retried)',
    dialect: 'deepseek',
    scenario: 'fail-first=1:503',
    expect: all(complete),
  },
  {
    fault: '401 (upstream key refused)',
    dialect: 'deepseek',
    scenario: 'status=401',
    expect: all({ kind: 'error', status: 502, code: 'upstream_auth_failed' }),
    attempts: 1,
  },
  {
    fault: '402 (insufficient balance)',
    dialect: 'deepseek',
    scenario: 'status=402',
    expect: all({ kind: 'error', status: 502, code: 'invalid_request_error' }),
  },
  {
    fault: '403 (forbidden)',
    dialect: 'deepseek',
    scenario: 'status=403',
    expect: all({ kind: 'error', status: 502, code: 'upstream_auth_failed' }),
  },
  {
    fault: 'connection reset before the headers, every attempt',
    dialect: 'deepseek',
    scenario: 'reset-before-headers',
    expect: all({ kind: 'error', status: 502, code: 'network', message: 'the upstream provider could not be reached' }),
    attempts: 1 + MATRIX_RETRIES,
  },
  {
    fault: 'connection reset after 3 events',
    dialect: 'deepseek',
    scenario: 'reset-after=3;pace=20',
    expect: afterCommit(502, 'network', 'the connection to the upstream provider was cut mid-answer'),
  },
  {
    fault: 'clean EOF without `[DONE]` after 3 events',
    dialect: 'deepseek',
    scenario: 'eof-after=3',
    expect: afterCommit(502, 'stream_incomplete'),
  },
  {
    fault: 'no response headers for longer than the first-chunk timeout',
    dialect: 'deepseek',
    scenario: `headers-delay=${MATRIX_TIMEOUTS.firstChunkMs * 3}`,
    expect: all({ kind: 'error', status: 504, code: 'timeout' }),
    attempts: 1,
  },
  {
    fault: 'stall before the first event (headers sent)',
    dialect: 'deepseek',
    scenario: 'stall-after=0',
    expect: all({ kind: 'error', status: 504, code: 'timeout' }),
    attempts: 1,
  },
  {
    fault: 'stall mid-stream (after 3 events)',
    dialect: 'deepseek',
    scenario: 'stall-after=3',
    expect: afterCommit(504, 'timeout'),
  },
  {
    fault: '`: keep-alive` queue longer than the first-chunk timeout',
    dialect: 'deepseek',
    scenario: `queue=${MATRIX_TIMEOUTS.firstChunkMs * 3};keep-alive=100`,
    expect: all({ kind: 'error', status: 504, code: 'timeout' }),
    attempts: 1,
  },
  {
    fault: '`: keep-alive` queue shorter than the first-chunk timeout',
    dialect: 'deepseek',
    scenario: 'queue=300;keep-alive=50',
    expect: all(complete),
  },
  {
    fault: 'malformed JSON in an event',
    dialect: 'deepseek',
    scenario: 'malformed-json-at=2',
    expect: afterCommit(502, 'malformed_json'),
  },
  {
    fault: '`event: error` mid-stream',
    dialect: 'deepseek',
    scenario: 'error-event-at=2',
    expect: afterCommit(502, 'internal_error'),
  },
  {
    fault: '`data: {"error": …}` mid-stream',
    dialect: 'deepseek',
    scenario: 'error-payload-at=2',
    expect: afterCommit(502, 'internal_error'),
  },
  {
    fault: 'one 10 MB event',
    dialect: 'deepseek',
    scenario: 'huge-event=10000000',
    expect: all(complete),
    hugePiece: true,
  },
  {
    fault: 'invalid UTF-8 in an event',
    dialect: 'deepseek',
    scenario: 'invalid-utf8-at=2',
    expect: afterCommit(502, 'sse_invalid_utf8'),
  },
  {
    fault: 'HTML error page with status 200',
    dialect: 'deepseek',
    scenario: 'html-200',
    expect: all({ kind: 'error', status: 502, code: 'unexpected_content_type' }),
  },
  {
    fault: 'HTML error page with status 502, every attempt',
    dialect: 'deepseek',
    scenario: 'html-status=502',
    expect: all({ kind: 'error', status: 502, code: 'upstream_http' }),
  },
  {
    fault: '`finish_reason: insufficient_system_resource`',
    dialect: 'deepseek',
    scenario: 'finish=insufficient_system_resource',
    expect: afterCommit(502, 'answer_failed'),
  },
  { fault: 'a bare non-SSE line mid-stream', dialect: 'deepseek', scenario: 'bare-line-at=2', expect: all(complete) },
  {
    fault: 'CRLF line ends, `data:` without a space, random TCP splits',
    dialect: 'deepseek',
    scenario: 'crlf;no-space;split=random;split-delay=0',
    expect: all(complete),
  },
];
