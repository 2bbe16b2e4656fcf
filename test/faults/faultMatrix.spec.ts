/**
 * The fault matrix through a real gateway on loopback: every emulator fault × every endpoint, driven by the data in
 * faultMatrix.ts (which also renders the "Failure behaviour" table of docs/endpoints.md, checked here). A healthy request runs alongside every row.
 * Every request has a deadline; every response, header and log line is scanned for the keys at the end.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rawRequest, type RawResponse } from '../helpers/rawRequest';
import {
  contentOf,
  expectErrorAfterCommit,
  expectErrorBeforeCommit,
  expectJsonAnswer,
  expectNdjsonAnswer,
  expectSseAnswer,
  type Endpoint,
} from '../helpers/wireAssertions';
import { FAULT_MATRIX, MATRIX_RETRIES, MATRIX_TIMEOUTS, type Expectation, type FaultCase } from './faultMatrix';
import { FAILURE_TABLE_DOC, formatFailureTable, readFailureTable } from './formatFailureTable';
import { DEFAULT_RETRY_POLICY } from '../../src/core/retryPolicy';
import { AUTH, SECRETS, startFaultGateway, type FaultGateway } from './startFaultGateway';

const ENDPOINTS: Endpoint[] = ['/chat/json', '/chat/stream', '/chat/sse'];
const DEADLINE_MS = 20_000;
const MESSAGES = [{ role: 'user', content: 'Tell me about streams, please.' }];
jest.setTimeout(60_000);

const gateways: Partial<Record<FaultCase['dialect'], FaultGateway>> = {};
const reference: Partial<Record<FaultCase['dialect'], string>> = {};
const captured: string[] = [];
const writes: string[] = [];
const realStdout = process.stdout.write.bind(process.stdout);
const realStderr = process.stderr.write.bind(process.stderr);

/** One request with a deadline: a response that does not end in time fails the test (never a hang). */
async function ask(gw: FaultGateway, endpoint: Endpoint, scenario: string): Promise<RawResponse> {
  const deadline = new AbortController();
  const { signal } = deadline;
  const timer = setTimeout(() => deadline.abort(), DEADLINE_MS);
  const res = await rawRequest(`${gw.gateway.url}${endpoint}`, {
    headers: AUTH,
    body: { model: scenario === '' ? 'deepseek-chat' : `deepseek-chat#${scenario}`, messages: MESSAGES },
    signal,
  }).finally(() => clearTimeout(timer));
  captured.push(JSON.stringify({ endpoint, scenario, status: res.status, headers: res.headers, body: res.body }));
  expect({ endpoint, scenario, hung: signal.aborted }).toEqual({ endpoint, scenario, hung: false });
  return res;
}

/** The text without its runs of 1000 or more `x` (the emulator's huge event). */
const withoutHugePiece = (text: string): string => {
  let out = text;
  for (let at = out.indexOf('x'.repeat(1000)); at !== -1; at = out.indexOf('x'.repeat(1000))) {
    let end = at;
    while (out.charCodeAt(end) === 120) end += 1;
    out = out.slice(0, at) + out.slice(end);
  }
  return out;
};

/** Asserts what the client of `endpoint` saw against the expectation. */
function check(endpoint: Endpoint, res: RawResponse, expectation: Expectation, c: FaultCase): void {
  const answer = reference[c.dialect] ?? '';
  const same = (content: string): void => {
    if (c.hugePiece === true) {
      expect(content.length).toBeGreaterThan(10_000_000);
      expect(withoutHugePiece(content)).toBe(answer);
    } else expect(content).toBe(answer);
  };
  if (expectation.kind === 'complete') {
    if (endpoint === '/chat/json') {
      const out = expectJsonAnswer(res);
      expect(out.finish_reason).toBe('stop');
      same(out.message.content);
    } else {
      const chunks = endpoint === '/chat/stream' ? expectNdjsonAnswer(res) : expectSseAnswer(res);
      expect(chunks.at(-1)?.finish_reason).toBe('stop');
      same(contentOf(chunks));
    }
    return;
  }
  if (expectation.kind === 'error') {
    const body = expectErrorBeforeCommit(res, endpoint, expectation.status, expectation.code);
    if (expectation.message !== undefined) expect(body.message).toBe(expectation.message);
    expect(res.headers['retry-after']).toBe(expectation.retryAfter);
    return;
  }
  expect(endpoint).not.toBe('/chat/json');
  const { chunks, error } = expectErrorAfterCommit(res, endpoint as '/chat/stream' | '/chat/sse', 1);
  expect(error.code).toBe(expectation.code);
  if (expectation.message !== undefined) expect(error.message).toBe(expectation.message);
  // What arrived is a strict prefix of the correct answer: nothing repeated, nothing invented, not presented as done.
  const partial = contentOf(chunks);
  expect(answer.startsWith(partial)).toBe(true);
  // A failed finish (`answer_failed`) may come after the whole text; it is still not presented as complete.
  if (expectation.code !== 'answer_failed') expect(partial.length).toBeLessThan(answer.length);
}

beforeAll(async () => {
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => (
    writes.push(String(chunk)),
    realStdout(chunk, ...rest)
  )) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => (
    writes.push(String(chunk)),
    realStderr(chunk, ...rest)
  )) as typeof process.stderr.write;
  const env = {
    CHATFLUX_MAX_RETRIES: String(MATRIX_RETRIES),
    CHATFLUX_FIRST_CHUNK_TIMEOUT_MS: String(MATRIX_TIMEOUTS.firstChunkMs),
    CHATFLUX_IDLE_TIMEOUT_MS: String(MATRIX_TIMEOUTS.idleMs),
  };
  for (const dialect of ['deepseek', 'openai'] as const) {
    const gw = await startFaultGateway({ dialect, env });
    gateways[dialect] = gw;
    const healthy = expectJsonAnswer(await ask(gw, '/chat/json', ''));
    expect(healthy.message.content.length).toBeGreaterThan(20);
    reference[dialect] = healthy.message.content;
  }
});

afterAll(async () => {
  process.stdout.write = realStdout as typeof process.stdout.write;
  process.stderr.write = realStderr as typeof process.stderr.write;
  await Promise.all(Object.values(gateways).map((gw) => gw.close()));
});

describe('fault matrix through the gateway', () => {
  it.each(FAULT_MATRIX.map((c) => [c.fault, c] as const))('%s', async (_name, c) => {
    const gw = gateways[c.dialect] as FaultGateway;
    const before = gw.emulator.requests.length;
    // A healthy stream alongside: the gateway keeps serving while the fault happens.
    // The endpoints run at once, except for the 10 MB event: three of those at once in this one process (client,
    // gateway and emulator share the event loop) can block it longer than the 1 s idle deadline of the matrix.
    const faulty = async (): Promise<RawResponse[]> => {
      if (c.hugePiece !== true) return Promise.all(ENDPOINTS.map((endpoint) => ask(gw, endpoint, c.scenario)));
      const out: RawResponse[] = [];
      for (const endpoint of ENDPOINTS) out.push(await ask(gw, endpoint, c.scenario));
      return out;
    };
    const [healthy, results] = await Promise.all([ask(gw, '/chat/sse', 'pace=2'), faulty()]);
    expect(contentOf(expectSseAnswer(healthy))).toBe(reference[c.dialect]);
    ENDPOINTS.forEach((endpoint, i) => check(endpoint, results[i] as RawResponse, c.expect[endpoint], c));
    // The upstream saw every attempt of this row end (no connection left open behind a stall or an error).
    const attempts = gw.emulator.requests.slice(before);
    expect(attempts.length).toBeGreaterThanOrEqual(ENDPOINTS.length + 1);
    expect(attempts.length).toBeLessThanOrEqual((ENDPOINTS.length + 1) * (MATRIX_RETRIES + 1));
    if (c.attempts !== undefined) {
      const model = `deepseek-chat#${c.scenario}`;
      const faultyAttempts = attempts.filter((r) => (r.body as { model?: unknown } | undefined)?.model === model);
      expect({ fault: c.fault, attempts: faultyAttempts.length }).toEqual({
        fault: c.fault,
        attempts: c.attempts * ENDPOINTS.length,
      });
    }
    let timer: NodeJS.Timeout | undefined;
    const settled = await Promise.race([
      Promise.all(attempts.map((r) => r.closed)).then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(resolve, 5000, false))),
    ]);
    clearTimeout(timer);
    expect(settled).toBe(true);
  });

  it('upstream requests carried the upstream key (the emulator demands it) and not the downstream one', () => {
    const requests = Object.values(gateways).flatMap((gw) => gw.emulator.requests);
    expect(requests.length).toBeGreaterThan(FAULT_MATRIX.length * 4);
    expect(requests.every((r) => r.status !== 401 || r.scenario.status === 401)).toBe(true);
  });

  it('logs one entry per request, with the status the client got', () => {
    const logs = Object.values(gateways).flatMap((gw) => gw.logs);
    expect(logs.length).toBe(captured.length);
    expect(logs.filter((l) => l.status === 504).length).toBeGreaterThan(0);
  });

  it('no response body, header, error frame, log line or process output contains a key', () => {
    const logs = Object.values(gateways).flatMap((gw) => gw.logs.map((entry) => JSON.stringify(entry)));
    const haystack = [...captured, ...logs, ...writes];
    expect(captured.length).toBe(2 + FAULT_MATRIX.length * (ENDPOINTS.length + 1));
    for (const secret of SECRETS) {
      expect(haystack.filter((text) => text.includes(secret))).toEqual([]);
      // Also no telling fragment of it (a truncated key in a message).
      expect(haystack.filter((text) => text.includes(secret.slice(0, 16)))).toEqual([]);
    }
  });
});

describe(`the "Failure behaviour" table of ${FAILURE_TABLE_DOC}`, () => {
  it('is the table generated from the fault matrix (run `npm run failure-table -- --write`)', () => {
    const doc = readFileSync(join(__dirname, '..', '..', FAILURE_TABLE_DOC), 'utf8');
    expect(readFailureTable(doc)).toBe(formatFailureTable());
  });

  it('says which timeouts are retried exactly as the retry policy does (a headers timeout is not)', () => {
    const table = formatFailureTable();
    const prose = table.slice(0, table.indexOf('| upstream fault')).replace(/\s+/g, ' ');
    const retried = /Retried while nothing was sent:(.*?)Not retried:/.exec(prose)?.[1] ?? '';
    const notRetried = prose.slice(prose.indexOf('Not retried:'));
    for (const phase of ['connect', 'headers', 'first_chunk', 'idle', 'total'] as const) {
      const inPolicy = DEFAULT_RETRY_POLICY.timeoutPhases.includes(phase);
      expect({ phase, retried: retried.includes(`\`${phase}\``) }).toEqual({ phase, retried: inPolicy });
      expect({ phase, notRetried: notRetried.includes(`\`${phase}\``) }).toEqual({ phase, notRetried: !inPolicy });
    }
    expect(DEFAULT_RETRY_POLICY.timeoutPhases).not.toContain('headers');
    // Rows that show it: a timeout before the headers, and one before the first chunk, are not retried.
    const noRetry = FAULT_MATRIX.filter((c) => /^(headers-delay|stall-after=0|queue=)/.test(c.scenario));
    expect(noRetry.map((c) => c.attempts)).toEqual([1, 1, 1]);
  });

  it('covers every endpoint of every row, and every expectation kind', () => {
    const kinds = new Set(FAULT_MATRIX.flatMap((c) => ENDPOINTS.map((e) => c.expect[e].kind)));
    expect([...kinds].sort()).toEqual(['complete', 'error', 'in-band']);
    expect(new Set(FAULT_MATRIX.map((c) => c.scenario)).size).toBe(FAULT_MATRIX.length);
  });
});
