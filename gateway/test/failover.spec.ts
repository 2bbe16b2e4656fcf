/**
 * The failover catalogue (issue 19), one case per fault, through the gateway: a route `chat` over emulators started
 * here (each with its fault as its default scenario), configured with CHATFLUX_ROUTES as an operator would. The
 * client gets the complete answer — the same text, to the character, as a healthy route gives — or, for the
 * content-policy case and when nobody can continue, a clean error; with the attempts and the model that finished.
 *
 * Time is scaled down so the file runs in a few seconds: "first token after 20 s" is a 5 s queue against a 300 ms
 * first-chunk budget, "silent for 30 s" a stall against a 300 ms idle deadline, "down for a minute, one request every
 * 4 s" is down for 1 s with a request every 100 ms and a 300 ms breaker cool-down (all 1/40 or shorter).
 */
import type { LlmClientOutput, LlmClientOutputChunk, RouteAttempt } from '../../src/core/schemas';
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import type { GatewayRoute, GatewayRouteTarget } from '../src/loadRoutes';
import { startGateway, type RunningGateway } from '../src/startGateway';
import type { ChatRequestLog } from '../../src/serve/ChatRequestLog';
import type { EmulatorDialect } from '../../src/testing/EmulatorDialect';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { fetchSseToken } from '../../test/helpers/fetchSseToken';
import { rawRequest } from '../../test/helpers/rawRequest';
import { startPoisonUpstream } from '../../test/helpers/startPoisonUpstream';
import { startServer, type TestServer } from '../../test/helpers/startServer';

jest.setTimeout(15_000);

interface TargetSpec {
  scenario?: string;
  dialect?: EmulatorDialect;
  target?: Partial<GatewayRouteTarget>;
}

interface Setup {
  gateway: RunningGateway;
  emulators: Emulator[];
}

const MESSAGES = [{ role: 'user', content: '讲讲 failover' }];
let open: Setup | undefined;
afterEach(async () => {
  await open?.gateway.close(0);
  await Promise.all(open?.emulators.map((e) => e.close()) ?? []);
  open = undefined;
});

/** A gateway with route `chat` over one emulator per spec, and route `ref` over a healthy one of `refDialect`. */
async function setup(
  specs: TargetSpec[],
  route: Partial<GatewayRoute> = {},
  refDialect: EmulatorDialect = 'deepseek',
  refTokens = 60,
  env: Record<string, string> = {},
  log: (entry: ChatRequestLog) => void = () => undefined,
): Promise<Setup> {
  const emulators = await Promise.all(specs.map((spec) => startEmulator({ dialect: spec.dialect ?? 'deepseek', seed: 1, scenario: spec.scenario ?? '' })));
  const ref = await startEmulator({ dialect: refDialect, seed: 1, scenario: `tokens=${refTokens}` });
  emulators.push(ref);
  const targets = specs.map((spec, i) => ({
    provider: 'openai-compatible',
    baseUrl: emulators[i]!.url,
    model: 'deepseek-chat',
    name: `t${i}`,
    retries: 0,
    prefill: 'deepseek',
    ...spec.target,
  }));
  const routes = {
    chat: { breaker: false, ...route, targets },
    ref: { targets: [{ provider: 'openai-compatible', baseUrl: ref.url, model: 'deepseek-chat', name: 'ref' }] },
  };
  const gateway = await startGateway(
    { ...loadGatewayConfig({ CHATFLUX_ROUTES: JSON.stringify(routes), CHATFLUX_HEARTBEAT_MS: '0', ...env }), port: 0 },
    { log },
  );
  open = { gateway, emulators };
  return open;
}

const stream = async (s: Setup, model = 'chat'): Promise<{ status: number; lines: Array<LlmClientOutputChunk & { error?: { code: string; message: string } }> }> => {
  const res = await rawRequest(`${s.gateway.url}/chat/stream`, { body: { model, messages: MESSAGES } });
  return { status: res.status, lines: res.body.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l)) };
};
const json = async (s: Setup, model = 'chat'): Promise<{ status: number; body: LlmClientOutput & { error?: { code: string; message: string } } }> => {
  const res = await rawRequest(`${s.gateway.url}/chat/json`, { body: { model, messages: MESSAGES } });
  return { status: res.status, body: JSON.parse(res.body) };
};

/** The text a healthy route gives. */
const healthyText = async (s: Setup): Promise<string> => (await json(s, 'ref')).body.message.content;
const outcomes = (attempts: RouteAttempt[] | undefined): string[] => (attempts ?? []).map((a) => `${a.target}:${a.outcome}${a.error === undefined ? '' : `(${a.error})`}`);

/** Asserts a complete stream: one index sequence, done last, the healthy text; returns its last chunk. */
function expectComplete(lines: LlmClientOutputChunk[], text: string): LlmClientOutputChunk {
  expect(lines.map((l) => l.index)).toEqual(lines.map((_, i) => i));
  expect(lines.filter((l) => l.done)).toHaveLength(1);
  const last = lines[lines.length - 1]!;
  expect(last.done).toBe(true);
  expect(lines.map((l) => l.message.content).join('')).toBe(text);
  expect(lines.some((l) => l.message.reasoning_content !== undefined)).toBe(false);
  return last;
}

describe('failover catalogue through the gateway (route "chat")', () => {
  it('429 with Retry-After: obeyed on the same target (its retry budget), then the fallback answers; its model and usage only', async () => {
    const s = await setup(
      [{ dialect: 'openai', scenario: 'status=429;retry-after-ms=150', target: { retries: 1 } }, { target: { model: 'backup-model' } }],
      {},
      'deepseek',
      60,
    );
    s.emulators[1]!.setScenario('tokens=60');
    const started = Date.now();
    const { lines } = await stream(s);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    const last = lines[lines.length - 1]!;
    expect(last.done).toBe(true);
    expect(outcomes(last.attempts)).toEqual(['t0:retried(rate_limit_exceeded)', 't0:failed(rate_limit_exceeded)', 't1:completed']);
    expect(last.model).toBe('backup-model');
    expect(last.provider).toBe('openai-compatible');
    expect(last.usage?.completion_tokens).toBe(61 - 1); // the backup's own usage: the 429s are not billed
  });

  it('429 persistent without Retry-After: backoff retries, then the next target', async () => {
    const s = await setup([{ scenario: 'status=429', target: { retries: 1 } }, { scenario: 'tokens=60' }]);
    const { body } = await json(s);
    expect(body.message.content).toBe(await healthyText(s));
    expect(outcomes(body.attempts)).toEqual(['t0:retried(rate_limit_exceeded)', 't0:failed(rate_limit_exceeded)', 't1:completed']);
  });

  it('500 once: retried on the same target, which answers', async () => {
    const s = await setup([{ scenario: 'fail-first=1:500;tokens=60', target: { retries: 1 } }, { scenario: 'tokens=60' }]);
    const { lines } = await stream(s);
    const last = expectComplete(lines, await healthyText(s));
    expect(outcomes(last.attempts)).toEqual(['t0:retried(internal_error)', 't0:completed']);
    expect(s.emulators[1]!.requests).toHaveLength(0);
  });

  it('503 persistent: the next target answers, and the client sees its model', async () => {
    const s = await setup([{ scenario: 'status=503' }, { scenario: 'tokens=60', target: { model: 'deepseek-chat' } }]);
    const { body } = await json(s);
    expect(body.message.content).toBe(await healthyText(s));
    expect(body.model).toBe('deepseek-chat');
    expect(body.provider).toBe('openai-compatible');
    expect(outcomes(body.attempts)).toEqual(['t0:failed(server_overloaded)', 't1:completed']);
  });

  it('reset before headers: the next target answers', async () => {
    const s = await setup([{ scenario: 'reset-before-headers' }, { scenario: 'tokens=60' }]);
    const { lines } = await stream(s);
    const last = expectComplete(lines, await healthyText(s));
    expect(outcomes(last.attempts)).toEqual(['t0:failed(network)', 't1:completed']);
  });

  it('no response at all: one headers budget, not retried on the same target, then the next', async () => {
    const s = await setup([{ scenario: 'headers-delay=30000', target: { retries: 2, timeouts: { headers: 300 } } }, { scenario: 'tokens=60' }]);
    const started = Date.now();
    const { body } = await json(s);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(body.message.content).toBe(await healthyText(s));
    expect(outcomes(body.attempts)).toEqual(['t0:failed(timeout:headers)', 't1:completed']);
    expect(s.emulators[0]!.requests).toHaveLength(1);
  });

  it('first token after 20 s (here a 5 s queue against a 300 ms first-chunk budget): the next target, no retry', async () => {
    const s = await setup([{ scenario: 'queue=5000;keep-alive=50', target: { retries: 2, timeouts: { firstChunk: 300 } } }, { scenario: 'tokens=60' }]);
    const started = Date.now();
    const { lines } = await stream(s);
    expect(Date.now() - started).toBeLessThan(4_000); // one 300 ms budget, not the 5 s queue
    const last = expectComplete(lines, await healthyText(s));
    expect(outcomes(last.attempts)).toEqual(['t0:failed(timeout:first_chunk)', 't1:completed']);
    expect(s.emulators[0]!.requests).toHaveLength(1);
  });

  it('stream cut after 40 of 60 tokens: continued by the next target from the text so far (DeepSeek prefix on /beta), spliced', async () => {
    const s = await setup([{ scenario: 'tokens=60;pace=2;reset-after=40' }, { scenario: 'tokens=60' }]);
    const { lines } = await stream(s);
    const last = expectComplete(lines, await healthyText(s));
    expect(outcomes(last.attempts)).toEqual(['t0:cut(network)', 't1:completed']);
    const continued = s.emulators[1]!.requests[0]!;
    expect(continued.path).toBe('/v1/beta/chat/completions');
    const messages = (continued.body as { messages: Array<Record<string, unknown>> }).messages;
    expect(messages[messages.length - 1]).toMatchObject({ role: 'assistant', prefix: true });
    expect(lines.slice(0, -1).map((l) => l.message.content).join('')).toContain(messages[messages.length - 1]!.content as string);
  });

  it('stream silent for 30 s mid-answer (a stall past a 300 ms idle deadline): continued; /chat/json too', async () => {
    const s = await setup([{ scenario: 'tokens=60;stall-after=30', target: { timeouts: { idle: 300 } } }, { scenario: 'tokens=60' }]);
    const text = await healthyText(s);
    const res = await rawRequest(`${s.gateway.url}/chat/stream`, { body: { model: 'chat', messages: MESSAGES } });
    const lines = res.body.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as LlmClientOutputChunk);
    expect(outcomes(expectComplete(lines, text).attempts)).toEqual(['t0:cut(timeout:idle)', 't1:completed']);
    // The client's longest silence is about one idle budget (300 ms) plus the continuation's start, not 30 s.
    const gaps = res.pieces.slice(1).map((piece, i) => piece.at - res.pieces[i]!.at);
    expect(Math.max(...gaps)).toBeLessThan(3_000);
    const { body } = await json(s);
    expect(body.message.content).toBe(text);
    expect(body.finish_reason).toBe('stop');
  });

  it('one malformed chunk: continued from the text before it (/chat/stream and /chat/sse alike)', async () => {
    const s = await setup([{ scenario: 'tokens=60;malformed-json-at=20' }, { scenario: 'tokens=60' }]);
    const text = await healthyText(s);
    const { lines } = await stream(s);
    expect(outcomes(expectComplete(lines, text).attempts)).toEqual(['t0:cut(malformed_json)', 't1:completed']);
    const sse = await rawRequest(`${s.gateway.url}/chat/sse`, { body: { model: 'chat', messages: MESSAGES } });
    const data = sse.body.split('\n').filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]').map((l) => JSON.parse(l.slice(6)) as LlmClientOutputChunk);
    expect(sse.body).not.toContain('event: error');
    expect(outcomes(expectComplete(data, text).attempts)).toEqual(['t0:cut(malformed_json)', 't1:completed']);
  });

  it('no [DONE]: complete after every finish_reason (no continuation); EOF before the finish is continued', async () => {
    const s = await setup([{ scenario: 'tokens=60;no-done' }, { scenario: 'tokens=60' }]);
    const text = await healthyText(s);
    const { lines } = await stream(s);
    expect(outcomes(expectComplete(lines, text).attempts)).toEqual(['t0:completed']);
    s.emulators[0]!.setScenario('tokens=60;eof-after=30');
    const cut = await stream(s);
    expect(outcomes(expectComplete(cut.lines, text).attempts)).toEqual(['t0:cut(stream_incomplete)', 't1:completed']);
  });

  it('context_length_exceeded: to the next target declared larger (a target no larger is not asked)', async () => {
    const s = await setup([
      { dialect: 'openai', scenario: 'context-window=5', target: { contextWindow: 5 } },
      { scenario: 'tokens=60', target: { contextWindow: 5 } },
      { scenario: 'tokens=60', target: { contextWindow: 128_000 } },
    ]);
    const { body } = await json(s);
    expect(body.message.content).toBe(await healthyText(s));
    expect(outcomes(body.attempts)).toEqual(['t0:failed(context_length_exceeded)', 't2:completed']);
    expect(s.emulators[1]!.requests).toHaveLength(0);
  });

  it("a content-policy 400 does not fail over: the client gets a clean error with the provider's reason", async () => {
    const s = await setup([{ dialect: 'moonshot', scenario: 'status=400;error-type=content_filter' }, { scenario: 'tokens=60' }]);
    const { status, body } = await json(s);
    expect(status).toBe(502);
    expect(body.error).toMatchObject({ code: 'content_filter' });
    expect(body.error!.message).toContain('considered high risk');
    const { lines } = await stream(s);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.error).toMatchObject({ code: 'content_filter' });
    expect(s.emulators[1]!.requests).toHaveLength(0);
  });

  it('a fallback that rejects the prefill: a stream that does not accept a restart gets the real failure, never the 400 nor a truncated answer as complete; /chat/json restarts invisibly', async () => {
    // Route `ref`: the fallback's own uncut answer (the same dialect, seed and length).
    const s = await setup(
      [
        { scenario: 'tokens=60;pace=2;reset-after=30', target: { prefill: false } },
        { dialect: 'openai', scenario: 'reject-prefill;tokens=60', target: { prefill: 'assistant' } },
      ],
      {},
      'openai',
    );
    const { lines } = await stream(s);
    expect(lines.some((l) => l.done && l.error === undefined)).toBe(false); // the error line is the only done: true
    expect(lines[lines.length - 1]!.error).toMatchObject({ code: 'network' });
    expect(lines.length).toBeGreaterThan(1); // the text delivered before the cut
    expect(lines.some((l) => l.restart !== undefined)).toBe(false);
    expect(s.emulators[1]!.requests.every((r) => r.status === 400)).toBe(true);
    // /chat/json: nothing reached the client, so the answer starts again on the fallback, whole.
    const { status, body } = await json(s);
    expect(status).toBe(200);
    const fresh = (await json(s, 'ref')).body.message.content;
    expect(fresh.length).toBeGreaterThan(0);
    // The fallback's whole answer, as it gives it uncut: nothing of the discarded partial text kept or glued on.
    expect(body.message.content).toBe(fresh);
    expect(outcomes(body.attempts)).toEqual(['t0:cut(network)', 't1:failed(invalid_request_error)', 't1:completed']);
    expect(body.model).toBe('deepseek-chat');
  });

  it('restart: a stream that sends Chatflux-Accept-Restart gets a restart frame, then the whole answer (NDJSON, SSE, /v1 SSE); /v1 without stream restarts invisibly', async () => {
    const s = await setup([{ scenario: 'tokens=60;pace=2;reset-after=30', target: { prefill: false } }, { scenario: 'tokens=60', target: { prefill: false } }]);
    const text = await healthyText(s);
    const headers = { 'Chatflux-Accept-Restart': 'true' };
    const res = await rawRequest(`${s.gateway.url}/chat/stream`, { body: { model: 'chat', messages: MESSAGES }, headers });
    const lines = res.body.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as LlmClientOutputChunk);
    const at = lines.findIndex((l) => l.restart !== undefined);
    expect(at).toBeGreaterThan(0); // text, then the restart
    expect(lines[at]).toEqual({ message: { role: 'assistant', content: '' }, done: false, index: at, restart: { code: 'network' } });
    expect(lines.slice(0, at).map((l) => l.message.content).join('')).toBe(text.slice(0, lines.slice(0, at).map((l) => l.message.content).join('').length));
    expect(lines.map((l) => l.index)).toEqual(lines.map((_, i) => i)); // one index sequence
    const after = lines.slice(at + 1);
    expect(after.map((l) => l.message.content).join('')).toBe(text);
    expect(outcomes(after[after.length - 1]!.attempts)).toEqual(['t0:cut(network)', 't1:completed']);
    // /chat/sse: the same frame as `event: restart`.
    const sse = await rawRequest(`${s.gateway.url}/chat/sse`, { body: { model: 'chat', messages: MESSAGES }, headers });
    // A resumable answer: every value frame (the restart's too) carries `id: <stream>:<position>`; then as without it.
    const streamId = String(sse.headers['chatflux-stream-id']);
    const frames = sse.body
      .split('\n\n')
      .filter((f) => f !== '')
      .map((f, position, all) => {
        if (position < all.length - 1) expect(f).toContain(`id: ${streamId}:${position}\n`);
        return f.replace(/^id: .*\n/m, '');
      });
    const restart = frames.findIndex((f) => f.startsWith('event: restart\n'));
    expect(restart).toBeGreaterThan(0);
    expect(JSON.parse(frames[restart]!.split('\n')[1]!.slice(6))).toMatchObject({ restart: { code: 'network' }, done: false });
    const data = frames.slice(restart + 1).filter((f) => f.startsWith('data: {')).map((f) => JSON.parse(f.slice(6)) as LlmClientOutputChunk);
    expect(data.map((l) => l.message.content).join('')).toBe(text);
    expect(frames[frames.length - 1]).toBe('data: [DONE]');
    // /v1/chat/completions, streamed: a chunk with no choices and `restart`, then the whole answer (the role again).
    const v1 = await rawRequest(`${s.gateway.url}/v1/chat/completions`, { body: { model: 'chat', messages: MESSAGES, stream: true }, headers });
    const chunks = v1.body.split('\n\n').filter((f) => f.startsWith('data: {')).map((f) => JSON.parse(f.slice(6)) as { choices: Array<{ delta: { role?: string; content?: string } }>; restart?: unknown });
    const v1At = chunks.findIndex((c) => c.restart !== undefined);
    expect(chunks[v1At]).toMatchObject({ object: 'chat.completion.chunk', choices: [], restart: { code: 'network' } });
    expect(chunks[v1At + 1]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.slice(v1At + 1).map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(text);
    // /v1/chat/completions, not streamed: invisibly, the whole answer.
    const whole = JSON.parse((await rawRequest(`${s.gateway.url}/v1/chat/completions`, { body: { model: 'chat', messages: MESSAGES } })).body) as { choices: Array<{ message: { content: string } }> };
    expect(whole.choices[0]!.message.content).toBe(text);
    // Without the header: the cut's clean error, as before.
    const plain = await stream(s);
    expect(plain.lines[plain.lines.length - 1]!.error).toMatchObject({ code: 'network' });
    expect(plain.lines.some((l) => l.restart !== undefined)).toBe(false);
  });

  it('restart: a restart that no target delivers surfaces the cut\'s own error, never the restart\'s failure', async () => {
    const cutting = 'tokens=60;pace=5;reset-after=30';
    const s = await setup([{ scenario: cutting, target: { prefill: false } }, { scenario: 'status=503', target: { prefill: false } }]);
    // The primary cuts its answer, then answers 503 (down from its first request on); the fallback is down.
    const downAfterFirst = async (): Promise<void> => {
      s.emulators[0]!.setScenario(cutting);
      const seen = s.emulators[0]!.requests.length;
      // Once the answer streams (its scenario taken), before its cut (30 events at 5 ms).
      while (!s.emulators[0]!.requests.some((r) => r.seq > seen && r.status === 200)) await new Promise((resolve) => setTimeout(resolve, 1));
      s.emulators[0]!.setScenario('status=503');
    };
    const sent = (): number[] => s.emulators.slice(0, 2).map((e) => e.requests.length);
    const [, answer] = await Promise.all([downAfterFirst(), json(s)]);
    expect(answer.status).toBe(502);
    expect(answer.body.error).toMatchObject({ code: 'network' });
    // The cut answer, then the restart: the fallback (503), then the primary again (503); nothing more.
    expect(sent()).toEqual([2, 1]);
    const [, res] = await Promise.all([
      downAfterFirst(),
      rawRequest(`${s.gateway.url}/chat/stream`, { body: { model: 'chat', messages: MESSAGES }, headers: { 'Chatflux-Accept-Restart': 'true' } }),
    ]);
    const lines = res.body.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as LlmClientOutputChunk & { error?: { code: string } });
    expect(lines.some((l) => l.restart !== undefined)).toBe(false); // announced only when the restart delivers
    expect(lines[lines.length - 1]!.error).toMatchObject({ code: 'network' });
  });

  it('a fallback that rejects the prefill, and a third that accepts it: spliced', async () => {
    const s = await setup([
      { scenario: 'tokens=60;pace=2;reset-after=30', target: { prefill: false } },
      { dialect: 'openai', scenario: 'reject-prefill', target: { prefill: 'assistant' } },
      { scenario: 'tokens=60' },
    ]);
    const { lines } = await stream(s);
    const last = expectComplete(lines, await healthyText(s));
    expect(outcomes(last.attempts)).toEqual(['t0:cut(network)', 't1:failed(invalid_request_error)', 't2:completed']);
  });

  it('verified continuation: a fallback declared prefill "assistant" that answers afresh (the default dialect) is a failed continuation, never the text twice', async () => {
    const s = await setup([
      { scenario: 'tokens=60;pace=2;reset-after=40', target: { prefill: false } },
      { scenario: 'tokens=60', target: { prefill: 'assistant' } },
    ]);
    const { lines } = await stream(s);
    const text = lines.map((l) => l.message?.content ?? '').join('');
    expect(text.split('关于「').length).toBe(2); // the opening once
    expect(lines.some((l) => l.done && (l as { error?: unknown }).error === undefined)).toBe(false);
    expect(lines[lines.length - 1]!.error).toMatchObject({ code: 'network' }); // the cut's own error
    const fallback = s.emulators[1]!.requests[0]!;
    const messages = (fallback.body as { messages: Array<Record<string, unknown>> }).messages;
    expect(messages[messages.length - 1]).toMatchObject({ role: 'assistant' });
    expect(messages[messages.length - 1]!.prefix).toBeUndefined(); // a plain trailing message: DeepSeek takes it as history
    // /chat/json: the answer starts again (invisibly), whole and once.
    const { body } = await json(s);
    expect(body.message.content).toBe(await healthyText(s));
    expect(outcomes(body.attempts)).toEqual(['t0:cut(network)', 't1:failed(continuation_mismatch)', 't1:completed']);
  });

  it('verified continuation: an answer started again that repeats the delivered text exactly is trimmed, and the client gets one answer', async () => {
    const s = await setup([
      { scenario: 'tokens=60;pace=2;reset-after=3', target: { prefill: false } },
      { scenario: 'tokens=60', target: { prefill: 'assistant' } },
    ]);
    const { lines } = await stream(s);
    const last = lines[lines.length - 1]!;
    expect(outcomes(last.attempts)).toEqual(['t0:cut(network)', 't1:completed']);
    // What the fallback answers afresh to the request it got: the client's answer is exactly that, once.
    const sent = s.emulators[1]!.requests[0]!.body as Record<string, unknown>;
    const fresh = JSON.parse((await rawRequest(`${s.emulators[1]!.url}/chat/completions`, { body: { ...sent, stream: false } })).body) as {
      choices: Array<{ message: { content: string } }>;
    };
    const delivered = (sent.messages as Array<{ content: string }>).at(-1)!.content;
    expect(delivered.length).toBeGreaterThan(0);
    expect(fresh.choices[0]!.message.content.startsWith(delivered)).toBe(true);
    expectComplete(lines, fresh.choices[0]!.message.content);
  });

  it('insufficient_system_resource after the text: continued, usage added up over both attempts', async () => {
    const s = await setup([{ scenario: 'tokens=60;finish=insufficient_system_resource' }, { scenario: 'tokens=60' }]);
    const { lines } = await stream(s);
    const last = expectComplete(lines, await healthyText(s));
    expect(outcomes(last.attempts)).toEqual(['t0:cut(answer_failed)', 't1:completed']);
    expect(last.finish_reason).toBe('stop');
    // The primary delivered all 60 pieces before failing; the backup continued with nothing left: both prompts billed.
    const ref = (await json(s, 'ref')).body.usage!;
    expect(last.usage?.completion_tokens).toBe(60);
    expect(last.usage?.prompt_tokens).toBe(2 * ref.prompt_tokens!);
  });

  it('accounting: usage covers every delivered segment — a cut one that never reported usage estimated and flagged; the finishing target named', async () => {
    const s = await setup([{ scenario: 'tokens=60;pace=2;reset-after=40' }, { scenario: 'tokens=60' }]);
    const ref = (await json(s, 'ref')).body.usage!;
    const { lines } = await stream(s);
    const last = lines[lines.length - 1]!;
    expect(outcomes(last.attempts)).toEqual(['t0:cut(network)', 't1:completed']);
    // 39 pieces streamed by t0 before its reset (estimated: one token each), the other 21 reported by t1: 60, as uncut.
    expect(last.usage?.completion_tokens).toBe(ref.completion_tokens);
    expect(last.usage_estimated).toBe(true);
    expect(last.target).toBe('t1');
    const { body } = await json(s);
    expect(body.usage?.completion_tokens).toBe(ref.completion_tokens);
    expect(body.usage_estimated).toBe(true);
    expect(body.target).toBe('t1');
    // An answer whose every segment reported its usage is not flagged.
    const whole = await json(s, 'ref');
    expect(whole.body.usage_estimated).toBeUndefined();
  });

  it("accounting: a continuation asks for the tokens the request's max_tokens still allows, and none is made when none are left", async () => {
    const s = await setup([{ scenario: 'pace=2;eof-after=3' }, {}]);
    const ask = async (body: Record<string, unknown>, model = 'chat') => {
      const res = await rawRequest(`${s.gateway.url}/chat/stream`, { body: { model, messages: MESSAGES, ...body } });
      return res.body.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as LlmClientOutputChunk);
    };
    const ref = await ask({ max_tokens: 5 }, 'ref');
    const refText = ref.map((l) => l.message.content).join('');
    // Cut after 2 of 5 pieces: the continuation is sent max_tokens 3 and the answer is the 5-piece one.
    const lines = await ask({ max_tokens: 5 });
    expectComplete(lines, refText);
    const last = lines[lines.length - 1]!;
    expect(last.finish_reason).toBe('length');
    expect(last.usage?.completion_tokens).toBe(5);
    expect((s.emulators[1]!.requests[0]!.body as { max_tokens?: number }).max_tokens).toBe(3);
    // Cut after all 5 pieces (before their finish): no continuation at all, the answer ends with `length`.
    s.emulators[0]!.setScenario('pace=2;eof-after=6');
    const full = await ask({ max_tokens: 5 });
    expectComplete(full, refText);
    expect(full[full.length - 1]!.finish_reason).toBe('length');
    expect(full[full.length - 1]!.usage).toMatchObject({ completion_tokens: 5 });
    expect(outcomes(full[full.length - 1]!.attempts)).toEqual(['t0:cut(stream_incomplete)']);
    expect(full[full.length - 1]!.target).toBe('t0');
    expect(s.emulators[1]!.requests).toHaveLength(1); // the first case's only
  });

  it("accounting: the operator's CHATFLUX_MAX_TOKENS bounds the continuations too (the client never gets more than it allows)", async () => {
    const s = await setup([{ scenario: 'pace=2;eof-after=6', target: { prefill: 'assistant' } }, { target: { prefill: 'assistant' } }], {}, 'deepseek', 60, {
      CHATFLUX_MAX_TOKENS: '5',
    });
    const { lines } = await stream(s);
    expect(lines.filter((l) => l.message.content !== '')).toHaveLength(5);
    const last = lines[lines.length - 1]!;
    expect(last.finish_reason).toBe('length');
    expect(last.usage?.completion_tokens).toBe(5);
    expect(s.emulators[1]!.requests).toHaveLength(0);
  });

  it('/v1/chat/completions names the target that finished: the model, and the route report as extension fields (streamed and not); so does the log line', async () => {
    const entries: ChatRequestLog[] = [];
    const s = await setup([{ scenario: 'tokens=60;pace=2;reset-after=40' }, { scenario: 'tokens=60', target: { model: 'backup-model' } }], {}, 'deepseek', 60, {}, (entry) => entries.push(entry));
    const whole = JSON.parse((await rawRequest(`${s.gateway.url}/v1/chat/completions`, { body: { model: 'chat', messages: MESSAGES } })).body) as Record<string, unknown>;
    expect(whole).toMatchObject({ object: 'chat.completion', model: 'backup-model', provider: 'openai-compatible', target: 't1', usage_estimated: true });
    expect(outcomes(whole.attempts as RouteAttempt[])).toEqual(['t0:cut(network)', 't1:completed']);
    for (const includeUsage of [false, true]) {
      const res = await rawRequest(`${s.gateway.url}/v1/chat/completions`, {
        body: { model: 'chat', messages: MESSAGES, stream: true, ...(includeUsage ? { stream_options: { include_usage: true } } : {}) },
      });
      const chunks = res.body.split('\n\n').filter((f) => f.startsWith('data: {')).map((f) => JSON.parse(f.slice(6)) as Record<string, unknown>);
      const final = chunks[chunks.length - 1]!;
      expect(final).toMatchObject({ model: 'backup-model', target: 't1', provider: 'openai-compatible' });
      expect(outcomes(final.attempts as RouteAttempt[])).toEqual(['t0:cut(network)', 't1:completed']);
      expect(chunks.slice(0, -1).some((c) => c.attempts !== undefined)).toBe(false); // only the last one
    }
    await stream(s);
    const logged = entries.filter((e) => e.model === 'chat');
    expect(logged).toHaveLength(4);
    for (const entry of logged) {
      expect(entry.target).toBe('t1');
      expect(outcomes(entry.attempts)).toEqual(['t0:cut(network)', 't1:completed']);
    }
  });

  it('a primary down for a minute, then healthy (20 requests, one every 4 s; here 1 s and 100 ms): every answer complete, the breaker spares the primary, which answers again once it recovers', async () => {
    const s = await setup(
      [{ scenario: 'down-for=1000;tokens=60' }, { scenario: 'tokens=60' }],
      { breaker: { consecutiveFailures: 2, coolDownMs: 300 } },
    );
    const text = await healthyText(s);
    const answered: string[] = [];
    const skipped: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = Date.now();
      const { lines } = await stream(s);
      const last = expectComplete(lines, text);
      answered.push(last.attempts!.find((a) => a.outcome === 'completed')!.target);
      skipped.push(last.attempts!.filter((a) => a.outcome === 'skipped').length);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (Date.now() - started))));
    }
    const refused = s.emulators[0]!.requests.filter((r) => r.status === 503).length;
    // Without a breaker every request of the first second would hit it (about 10); with it, two failures open it,
    // then one probe per 300 ms cool-down.
    expect(refused).toBeLessThanOrEqual(6);
    expect(skipped.some((n) => n > 0)).toBe(true);
    expect(answered[0]).toBe('t1');
    expect(answered.slice(-3)).toEqual(['t0', 't0', 't0']);
  });
});

describe('failover catalogue II through the gateway: recovery, first token, budget, poison', () => {
  it("a primary down, then healthy, with its default retries (scaled: down 3 s, a request every 100 ms): each half-open probe is one attempt, and the recovered primary answers again", async () => {
    const s = await setup(
      [{ scenario: 'down-for=3000;tokens=60', target: { retries: 2 } }, { scenario: 'tokens=60' }],
      { breaker: { consecutiveFailures: 2, coolDownMs: 125 } },
    );
    const text = await healthyText(s);
    const runs: string[][] = [];
    for (let i = 0; i < 40; i++) {
      const started = Date.now();
      const { lines } = await stream(s);
      runs.push(outcomes(expectComplete(lines, text).attempts));
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (Date.now() - started))));
    }
    const opened = runs.findIndex((attempts) => attempts.includes('t0:skipped'));
    expect(opened).toBeGreaterThan(0);
    expect(runs[0]).toEqual(['t0:retried(server_overloaded)', 't0:retried(server_overloaded)', 't0:failed(server_overloaded)', 't1:completed']);
    // Once open, the primary is only probed: one attempt, never retried, then the fallback at once.
    for (const attempts of runs.slice(opened)) expect(attempts.some((a) => a.startsWith('t0:retried'))).toBe(false);
    expect(runs.slice(-3)).toEqual([['t0:completed'], ['t0:completed'], ['t0:completed']]);
  });

  it('first token after 20 s from a silent provider (here 5 s against a 250 ms first-token budget): the fallback answers', async () => {
    const s = await setup([{ dialect: 'moonshot', scenario: 'queue=5000;tokens=60' }, { scenario: 'tokens=60' }], { silenceMs: 250 });
    const text = await healthyText(s);
    const started = Date.now();
    const { lines } = await stream(s);
    expect(Date.now() - started).toBeLessThan(4_000); // one 250 ms budget, not the 5 s queue
    expect(outcomes(expectComplete(lines, text).attempts)).toEqual(['t0:failed(timeout:first_chunk)', 't1:completed']);
  });

  it('a provider queuing with keep-alive comments (DeepSeek) past the first-token budget is waited for, not abandoned', async () => {
    const s = await setup([{ scenario: 'queue=2000;keep-alive=50;tokens=60' }, { scenario: 'tokens=60' }], { silenceMs: 400 });
    const text = await healthyText(s);
    const { lines } = await stream(s);
    expect(outcomes(expectComplete(lines, text).attempts)).toEqual(['t0:completed']); // five budgets of keep-alives
    expect(s.emulators[1]!.requests).toHaveLength(0);
  });

  it('a budget of upstream attempts per request (maxAttempts): three 503 targets with 2 retries each cost 4 requests, not 9', async () => {
    const s = await setup(
      [0, 1, 2].map(() => ({ scenario: 'status=503;retry-after-ms=1', target: { retries: 2 } })),
      { maxAttempts: 4 },
    );
    const { status, body } = await json(s);
    expect(status).toBe(502);
    expect(body.error?.code).toBe('server_overloaded');
    expect(s.emulators.slice(0, 3).map((e) => e.requests.length)).toEqual([2, 1, 1]);
  });

  it('a time budget per request (deadlineMs, here 1 s): Retry-After 3 s (here 300 ms) with 10 retries is not waited for past it', async () => {
    const s = await setup([{ dialect: 'openai', scenario: 'status=429;retry-after-ms=300', target: { retries: 10 } }], { deadlineMs: 1000 });
    const started = Date.now();
    const { status } = await json(s);
    expect(status).toBe(429);
    // At 0, 300 and 600 ms at the most (the next would start past 1 s), not 11 attempts 300 ms apart.
    expect(s.emulators[0]!.requests.length).toBeGreaterThanOrEqual(2);
    expect(s.emulators[0]!.requests.length).toBeLessThanOrEqual(4);
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe("one client cannot open a route's breakers for everyone (through the gateway, two API keys)", () => {
  const KEY_A = 'key-a-0123456789abcdef';
  const KEY_B = 'key-b-0123456789abcdef';
  let upstreams: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(upstreams.map((u) => u.close()));
    upstreams = [];
  });
  /** `startPoisonUpstream`, closed after the test. */
  const poisonUpstream = async (state: { down: boolean }): Promise<TestServer> => {
    const server = await startPoisonUpstream(state);
    upstreams.push(server);
    return server;
  };

  /** Two poisoned upstreams (one state) as the targets t0, t1 of route `chat`, behind a gateway with keys A and B. */
  const poisonedGateway = async (): Promise<{ state: { down: boolean }; p: TestServer; f: TestServer; gateway: RunningGateway }> => {
    const state = { down: false };
    const [p, f] = [await poisonUpstream(state), await poisonUpstream(state)];
    const routes = {
      chat: {
        breaker: { consecutiveFailures: 5, coolDownMs: 60_000 },
        targets: [p, f].map((u, i) => ({ provider: 'openai-compatible', baseUrl: `${u.url}/v1`, model: 'm', name: `t${i}`, retries: 0 })),
      },
    };
    const gateway = await startGateway(
      { ...loadGatewayConfig({ CHATFLUX_ROUTES: JSON.stringify(routes), CHATFLUX_GATEWAY_KEYS: `${KEY_A},${KEY_B}`, CHATFLUX_HEARTBEAT_MS: '0' }), port: 0 },
      { log: () => undefined },
    );
    open = { gateway, emulators: [] };
    return { state, p, f, gateway };
  };

  it('5+ poisoned requests of key A leave the breakers closed for key B; failures of both keys (an outage) still open them', async () => {
    const { state, gateway } = await poisonedGateway();
    const ask = async (key: string, content: string): Promise<{ status: number; body: LlmClientOutput & { error?: { code: string } } }> => {
      const res = await rawRequest(`${gateway.url}/chat/json`, { body: { model: 'chat', messages: [{ role: 'user', content }] }, headers: { authorization: `Bearer ${key}` } });
      return { status: res.status, body: JSON.parse(res.body) };
    };
    for (let i = 0; i < 8; i++) expect((await ask(KEY_A, `poison ${i}`)).status).toBe(502);
    const b = await ask(KEY_B, 'hello');
    expect(b.status).toBe(200);
    expect(outcomes(b.body.attempts)).toEqual(['t0:completed']);
    // A real outage: both keys fail, and the breakers open.
    state.down = true;
    for (let i = 0; i < 3; i++) await ask(KEY_A, `hello ${i}`);
    for (let i = 0; i < 2; i++) await ask(KEY_B, `hello ${i}`);
    const busy = await ask(KEY_B, 'hello again');
    expect(busy.status).toBe(503);
    expect(busy.body.error?.code).toBe('upstream_busy');
  });

  it("key A's poisoned POSTs and GET /chat/sse?token=… requests count as one caller (its key's): key B is still served by the primary", async () => {
    const { p, f, gateway } = await poisonedGateway();
    const { token } = await fetchSseToken(gateway.url, KEY_A);
    for (let i = 0; i < 4; i++) {
      const post = await rawRequest(`${gateway.url}/chat/json`, {
        body: { model: 'chat', messages: [{ role: 'user', content: `poison ${i}` }] },
        headers: { authorization: `Bearer ${KEY_A}` },
      });
      expect(post.status).toBe(502);
      const q = encodeURIComponent(JSON.stringify({ model: 'chat', messages: [{ role: 'user', content: `poison get ${i}` }] }));
      const get = await rawRequest(`${gateway.url}/chat/sse?token=${encodeURIComponent(token)}&q=${q}`);
      expect(get.body).toMatch(/^event: error\n/m);
    }
    // Every one of the 8 requests reached both targets (no breaker open yet), a token GET as a POST.
    expect([p, f].map((u) => u.requests.length)).toEqual([8, 8]);
    const b = await rawRequest(`${gateway.url}/chat/json`, {
      body: { model: 'chat', messages: [{ role: 'user', content: 'hello' }] },
      headers: { authorization: `Bearer ${KEY_B}` },
    });
    expect(b.status).toBe(200);
    expect(outcomes((JSON.parse(b.body) as LlmClientOutput).attempts)).toEqual(['t0:completed']);
  });
});

describe("the gateway's deadlines (CHATFLUX_*_TIMEOUT_MS) reach the route targets", () => {
  it('CHATFLUX_IDLE_TIMEOUT_MS is the idle deadline of a target that sets none: a stall is cut after it, not 60 s', async () => {
    const s = await setup([{ scenario: 'tokens=60;stall-after=30' }, { scenario: 'tokens=60' }], {}, 'deepseek', 60, {
      CHATFLUX_IDLE_TIMEOUT_MS: '300',
    });
    const text = await healthyText(s);
    const started = Date.now();
    const { lines } = await stream(s);
    expect(Date.now() - started).toBeLessThan(5_000); // one 300 ms idle budget, not the library's 60 s
    expect(outcomes(expectComplete(lines, text).attempts)).toEqual(['t0:cut(timeout:idle)', 't1:completed']);
  });

  it("CHATFLUX_FIRST_CHUNK_TIMEOUT_MS is the last target's first-chunk deadline; the others keep the route's silence budget", async () => {
    const s = await setup(
      // The first target queues silently (a keep-alive queue is no silence: it would be waited for), the last says it queues.
      [{ dialect: 'moonshot', scenario: 'queue=5000' }, { scenario: 'queue=5000;keep-alive=50' }],
      { silenceMs: 300 },
      'deepseek',
      60,
      { CHATFLUX_FIRST_CHUNK_TIMEOUT_MS: '400' },
    );
    const started = Date.now();
    const { status, body } = await json(s);
    expect(Date.now() - started).toBeLessThan(4_000); // 300 + 400 ms, not the 5 s queue
    expect(status).toBe(504);
    expect(body.error?.code).toBe('timeout');
    expect(s.emulators[0]!.requests).toHaveLength(1);
    expect(s.emulators[1]!.requests).toHaveLength(1);
  });

  it("a target's own timeouts win over the gateway's", async () => {
    const s = await setup(
      [{ scenario: 'tokens=60;stall-after=30', target: { timeouts: { idle: 300 } } }, { scenario: 'tokens=60' }],
      {},
      'deepseek',
      60,
      { CHATFLUX_IDLE_TIMEOUT_MS: '30000' },
    );
    const text = await healthyText(s);
    const started = Date.now();
    const { lines } = await stream(s);
    expect(Date.now() - started).toBeLessThan(5_000); // the target's 300 ms, not the gateway's 30 s
    expect(outcomes(expectComplete(lines, text).attempts)).toEqual(['t0:cut(timeout:idle)', 't1:completed']);
  });
});

describe('without routes: a provider that sends nothing is given up in bounded time (the defaults, scaled down by their variables)', () => {
  let silent: TestServer | undefined;
  afterEach(async () => {
    await silent?.close();
    silent = undefined;
  });
  const gatewayOver = async (handler: Parameters<typeof startServer>[0], env: Record<string, string>): Promise<RunningGateway> => {
    silent = await startServer(handler);
    const gateway = await startGateway(
      { ...loadGatewayConfig({ CHATFLUX_PROVIDER: 'openai-compatible', CHATFLUX_BASE_URL: `${silent.url}/v1`, CHATFLUX_MODEL: 'm', CHATFLUX_HEARTBEAT_MS: '0', ...env }), port: 0 },
      { log: () => undefined },
    );
    open = { gateway, emulators: [] };
    return gateway;
  };

  it('headers, then nothing (no keep-alive): a 504 after CHATFLUX_SILENCE_TIMEOUT_MS, one upstream request', async () => {
    const gateway = await gatewayOver((_req, res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders(), {
      CHATFLUX_SILENCE_TIMEOUT_MS: '300',
    });
    const started = Date.now();
    const res = await rawRequest(`${gateway.url}/chat/json`, { body: { messages: MESSAGES } });
    expect(res.status).toBe(504);
    expect(Date.now() - started).toBeLessThan(5_000); // one 300 ms silence, not the 600 s first-chunk deadline
    expect(silent!.requests).toHaveLength(1);
  });

  it('a provider that hangs up without a word is not asked again once CHATFLUX_DEADLINE_MS (here 1.5 s) is spent', async () => {
    const gateway = await gatewayOver((req) => setTimeout(() => req.socket.destroy(), 100), {
      CHATFLUX_DEADLINE_MS: '1500',
      CHATFLUX_MAX_RETRIES: '10',
    });
    const res = await rawRequest(`${gateway.url}/chat/json`, { body: { messages: MESSAGES } });
    expect(res.status).toBe(502);
    // Each attempt lasts 100 ms and each wait at least 200 ms (minDelayMs): at most 5 start within 1.5 s, not 11.
    expect(silent!.requests.length).toBeGreaterThanOrEqual(2);
    expect(silent!.requests.length).toBeLessThanOrEqual(5);
  });
});

describe('a route over the built-in emulator', () => {
  it('provider "emulator" in a route starts the built-in emulator even when the default provider is another', async () => {
    const env = {
      CHATFLUX_PROVIDER: 'openai-compatible',
      CHATFLUX_BASE_URL: 'http://127.0.0.1:9/v1',
      CHATFLUX_EMULATOR_PACE_MS: '0',
      CHATFLUX_ROUTES: JSON.stringify({ demo: { targets: [{ provider: 'emulator' }] } }),
    };
    const gateway = await startGateway({ ...loadGatewayConfig(env), port: 0 }, { log: () => undefined });
    open = { gateway, emulators: [] };
    const res = await rawRequest(`${gateway.url}/chat/json`, { body: { model: 'demo', messages: MESSAGES } });
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body) as LlmClientOutput;
    expect(body.model).toBe('deepseek-chat');
    expect(outcomes(body.attempts)).toEqual(['emulator:deepseek-chat:completed']);
  });
});
