/**
 * createChatRoute as a library user sees it, against emulators on 127.0.0.1: events (attempts, breaker
 * transitions), every breaker open → upstream_busy, a Moonshot `partial` continuation, a reasoning model cut in its
 * reasoning (the reasoning and the text spliced apart), misuse errors, target options a route does not use (refused),
 * a breaker probe abandoned mid-flight, and options checked at creation.
 */
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { createChatRoute, type ChatRoute, type ChatRouteEvent, type ChatRouteTarget } from '../../src/client/createChatRoute';
import { CapacityError, ConfigError } from '../../src/core/errors';
import * as answerPiece from '../../src/operators/isAnswerPiece';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';

const REQUEST = { messages: [{ role: 'user' as const, content: '你好' }] };
let emulators: Emulator[] = [];
let routes: ChatRoute[] = [];
afterEach(async () => {
  await Promise.all(routes.map((r) => r.close()));
  await Promise.all(emulators.map((e) => e.close()));
  emulators = [];
  routes = [];
});
const emulator = async (...args: Parameters<typeof startEmulator>): Promise<Emulator> => {
  const e = await startEmulator(...args);
  emulators.push(e);
  return e;
};
const route = (config: Parameters<typeof createChatRoute>[0]): ChatRoute => {
  const r = createChatRoute(config);
  routes.push(r);
  return r;
};

describe('createChatRoute', () => {
  it('reports attempts and breaker transitions; with every breaker open, upstream_busy with a Retry-After', async () => {
    const down = await emulator({ dialect: 'deepseek', scenario: 'status=503' });
    const events: ChatRouteEvent[] = [];
    const r = route({
      name: 'chat',
      breaker: { consecutiveFailures: 1, coolDownMs: 60_000 },
      targets: [{ baseUrl: down.url, model: 'deepseek-chat', name: 'only', retry: false }],
      onEvent: (event) => events.push(event),
    });
    await expect(firstValueFrom(r.json(REQUEST))).rejects.toMatchObject({ code: 'upstream_http', status: 503 });
    expect(r.breakerStates()).toEqual({ only: 'open' });
    const busy = await firstValueFrom(r.json(REQUEST)).catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(CapacityError);
    expect((busy as CapacityError).retryAfterSeconds).toBeGreaterThan(50);
    expect(down.requests).toHaveLength(1);
    expect(events.map((e) => (e.type === 'attempt' ? `attempt ${e.target} ${e.outcome}` : `breaker ${e.target} ${e.from}→${e.to}`))).toEqual([
      'breaker only closed→open',
      'attempt only failed',
      'attempt only skipped',
    ]);
  });

  it('continues a cut Moonshot answer with partial: true on another key of the same provider: the answer as if uncut', async () => {
    const healthy = await emulator({ dialect: 'moonshot', seed: 2, scenario: 'tokens=40' });
    const cutting = await emulator({ dialect: 'moonshot', seed: 2, scenario: 'tokens=40;pace=2;eof-after=15' });
    const target = { provider: 'moonshot' as const, apiKey: 'k', model: 'kimi-k2-0905-preview' };
    const whole = await firstValueFrom(route({ targets: [{ ...target, baseUrl: healthy.url }] }).json(REQUEST));
    const r = route({ targets: [{ ...target, baseUrl: cutting.url, name: 'key1' }, { ...target, baseUrl: healthy.url, name: 'key2' }] });
    const chunks = await lastValueFrom(r.stream(REQUEST).pipe(toArray()));
    expect(chunks.map((c) => c.message.content).join('')).toBe(whole.message.content);
    const last = chunks[chunks.length - 1]!;
    expect(last.attempts?.map((a) => `${a.target}:${a.outcome}`)).toEqual(['key1:cut', 'key2:completed']);
    const sent = healthy.requests[healthy.requests.length - 1]!.body as { messages: Array<Record<string, unknown>> };
    expect(sent.messages[sent.messages.length - 1]).toMatchObject({ role: 'assistant', partial: true });
  });

  it('a reasoning model cut during its reasoning: the reasoning and the text each come whole, apart', async () => {
    const healthy = await emulator({ dialect: 'deepseek', seed: 4, scenario: 'tokens=20' });
    const cutting = await emulator({ dialect: 'deepseek', seed: 4, scenario: 'tokens=20;pace=2;reset-after=5' });
    const target = { baseUrl: healthy.url, model: 'deepseek-reasoner', prefill: 'deepseek' as const };
    const whole = await firstValueFrom(route({ targets: [target] }).json(REQUEST));
    expect(whole.message.reasoning_content?.length).toBeGreaterThan(0);
    const r = route({ targets: [{ ...target, baseUrl: cutting.url }, target] });
    const spliced = await firstValueFrom(r.json(REQUEST));
    expect(spliced.message.reasoning_content).toBe(whole.message.reasoning_content);
    expect(spliced.message.content).toBe(whole.message.content);
    expect(spliced.attempts?.map((a) => a.outcome)).toEqual(['cut', 'completed']);
  });

  it('a continuation cut again is continued by the target after the one that cut (not the first one again)', async () => {
    const a = await emulator({ dialect: 'deepseek', seed: 5, scenario: 'tokens=40;pace=2;eof-after=10' });
    const b = await emulator({ dialect: 'deepseek', seed: 5, scenario: 'tokens=40;pace=2;eof-after=10' });
    const c = await emulator({ dialect: 'deepseek', seed: 5, scenario: 'tokens=40' });
    const target = { model: 'deepseek-chat', prefill: 'deepseek' as const };
    const whole = await firstValueFrom(route({ targets: [{ ...target, baseUrl: c.url }] }).json(REQUEST));
    const r = route({ targets: [{ ...target, baseUrl: a.url, name: 'a' }, { ...target, baseUrl: b.url, name: 'b' }, { ...target, baseUrl: c.url, name: 'c' }] });
    const answer = await firstValueFrom(r.json(REQUEST));
    expect(answer.message.content).toBe(whole.message.content);
    expect(answer.attempts?.map((x) => `${x.target}:${x.outcome}`)).toEqual(['a:cut', 'b:cut', 'c:completed']);
    expect(a.requests).toHaveLength(1);
  });

  it('a half-open probe abandoned by its caller is released: the next request probes again instead of being refused', async () => {
    const slow = await emulator({ dialect: 'deepseek', scenario: 'headers-delay=150;fail-first=1:503;tokens=5' });
    const r = route({ breaker: { consecutiveFailures: 1, coolDownMs: 30 }, targets: [{ baseUrl: slow.url, model: 'deepseek-chat', retry: false, name: 'p' }] });
    await expect(firstValueFrom(r.json(REQUEST))).rejects.toMatchObject({ status: 503 });
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(r.breakerStates()).toEqual({ p: 'half_open' });
    const probe = r.json(REQUEST).subscribe();
    await new Promise((resolve) => setTimeout(resolve, 30));
    probe.unsubscribe();
    const answer = await firstValueFrom(r.json(REQUEST));
    expect(answer.attempts?.map((x) => `${x.target}:${x.outcome}`)).toEqual(['p:completed']);
    expect(r.breakerStates()).toEqual({ p: 'closed' });
  });

  it('chunks(): the spliced upstream chunks, their usage summed over the delivered attempts, no failed finish reason', async () => {
    const failing = await emulator({ dialect: 'deepseek', seed: 6, scenario: 'tokens=12;finish=insufficient_system_resource' });
    const healthy = await emulator({ dialect: 'deepseek', seed: 6, scenario: 'tokens=12' });
    const target = { model: 'deepseek-chat', prefill: 'deepseek' as const };
    const r = route({ targets: [{ ...target, baseUrl: failing.url }, { ...target, baseUrl: healthy.url }] });
    const chunks = await lastValueFrom(r.chunks(REQUEST).pipe(toArray()));
    const finishes = chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason).filter((f) => f != null));
    expect(finishes).toEqual(['stop']);
    const usages = chunks.flatMap((c) => (c.usage == null ? [] : [c.usage]));
    expect(usages).toHaveLength(1);
    // 12 pieces from the failing primary, none left for the backup; both prompts.
    const single = await firstValueFrom(route({ targets: [{ ...target, baseUrl: healthy.url }] }).json(REQUEST));
    expect(usages[0]).toMatchObject({ completion_tokens: 12, prompt_tokens: 2 * single.usage!.prompt_tokens! });
  });

  it("each preset's prefill is a target's default: Mistral prefix: true on its own base URL, Qwen partial: true; OpenAI none (the answer restarts)", async () => {
    const cutting = await emulator({ dialect: 'deepseek', seed: 7, scenario: 'tokens=30;pace=2;eof-after=10' });
    const prefix = await emulator({ dialect: 'deepseek', seed: 7, scenario: 'tokens=30' });
    const partial = await emulator({ dialect: 'moonshot', seed: 7, scenario: 'tokens=30' });
    const cut = { baseUrl: cutting.url, model: 'deepseek-chat', name: 'cut', prefill: false as const };
    const lastBody = (e: Emulator) => e.requests[e.requests.length - 1]!;
    // Mistral: prefix: true, on its own base URL (not DeepSeek's /beta).
    const mistral = await lastValueFrom(route({ targets: [cut, { provider: 'mistral', apiKey: 'k', baseUrl: prefix.url, model: 'deepseek-chat' }] }).stream(REQUEST).pipe(toArray()));
    expect(mistral[mistral.length - 1]!.attempts?.map((a) => a.outcome)).toEqual(['cut', 'completed']);
    expect(lastBody(prefix).path).toBe('/v1/chat/completions');
    expect((lastBody(prefix).body as { messages: Array<Record<string, unknown>> }).messages.at(-1)).toMatchObject({ role: 'assistant', prefix: true });
    // Qwen: partial: true (Moonshot's mark).
    await lastValueFrom(route({ targets: [cut, { provider: 'qwen', apiKey: 'k', baseUrl: partial.url, model: 'qwen-plus' }] }).stream(REQUEST).pipe(toArray()));
    expect((lastBody(partial).body as { messages: Array<Record<string, unknown>> }).messages.at(-1)).toMatchObject({ role: 'assistant', partial: true });
    // OpenAI takes no prefill: never asked to continue; json() starts the answer again on it.
    const openai = await firstValueFrom(route({ targets: [cut, { provider: 'openai', apiKey: 'k', baseUrl: prefix.url, model: 'deepseek-chat' }] }).json(REQUEST));
    expect(openai.attempts?.map((a) => `${a.target}:${a.outcome}`)).toEqual(['cut:cut', 'openai:deepseek-chat:completed']);
    expect((lastBody(prefix).body as { messages: unknown[] }).messages).toEqual(REQUEST.messages);
  });

  it('refuses no targets, a bad context window and a bad breaker setting with a ConfigError', () => {
    expect(() => createChatRoute({ targets: [] })).toThrow(ConfigError);
    expect(() => createChatRoute({ targets: [{ baseUrl: 'http://127.0.0.1:9/v1', contextWindow: -1 }] })).toThrow(/contextWindow/);
    expect(() => createChatRoute({ targets: [{ baseUrl: 'http://127.0.0.1:9/v1' }], breaker: { window: 0 } })).toThrow(/window/);
    expect(() => createChatRoute({ name: 'chat', targets: [{ baseUrl: 'http://127.0.0.1:9/v1' }] })).toThrow(/has no model/);
  });

  it('closed: chunks, stream and json each fail with the route\'s ConfigError, and no target is tried', async () => {
    const events: ChatRouteEvent[] = [];
    const r = route({ targets: [{ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }], onEvent: (event) => events.push(event) });
    await r.close();
    for (const answer of [r.chunks(REQUEST), r.stream(REQUEST), r.json(REQUEST)] as const) {
      const failure = lastValueFrom<unknown>(answer);
      await expect(failure).rejects.toThrow(ConfigError);
      await expect(failure).rejects.toThrow(/this chat route was closed/);
    }
    expect(events).toEqual([]);
  });
});

describe('createChatRoute: no per-chunk work a call cannot use', () => {
  afterEach(() => jest.restoreAllMocks());
  it('only a call that can restart watches its chunks for delivered text: chunks() and stream() without acceptRestart do not', async () => {
    const up = await emulator({ dialect: 'deepseek', scenario: 'tokens=40' });
    const r = route({ targets: [{ baseUrl: up.url, model: 'deepseek-chat' }] });
    const pieces = jest.spyOn(answerPiece, 'isAnswerPiece');
    const chunks = await lastValueFrom(r.chunks(REQUEST).pipe(toArray()));
    const once = pieces.mock.calls.length;
    expect(once).toBeLessThanOrEqual(chunks.length); // continueAfterCut's count of pieces only (was twice: the restart's watch)
    pieces.mockClear();
    await lastValueFrom(r.stream(REQUEST).pipe(toArray()));
    expect(pieces.mock.calls.length).toBe(once);
    pieces.mockClear();
    await lastValueFrom(r.stream(REQUEST, { acceptRestart: true }).pipe(toArray()));
    expect(pieces.mock.calls.length).toBeGreaterThan(once); // this one can restart: it watches
  });
});

describe('createChatRoute: a target option the route does not use is refused', () => {
  it('refuses a target\'s timeouts.json and maxAnswerChars (the route\'s jsonTimeoutMs and maxAnswerChars apply) instead of ignoring them', async () => {
    const slow = await emulator({ dialect: 'deepseek', scenario: 'tokens=20;pace=20' });
    // What a JavaScript caller (or a spread ChatClientConfig) can pass: the types refuse it too.
    const target = (extra: object): ChatRouteTarget => ({ baseUrl: slow.url, model: 'deepseek-chat', ...extra }) as ChatRouteTarget;
    const make = (): ChatRoute => route({ targets: [target({ timeouts: { json: 50 } })] });
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(/jsonTimeoutMs/);
    expect(() => route({ targets: [target({}), target({ maxAnswerChars: 5 })] })).toThrow(/maxAnswerChars/);
    // The route's own deadline does apply.
    const r = route({ jsonTimeoutMs: 50, targets: [{ baseUrl: slow.url, model: 'deepseek-chat' }] });
    await expect(firstValueFrom(r.json(REQUEST))).rejects.toMatchObject({ code: 'timeout', phase: 'total' });
  });
});

describe('createChatRoute: breaker probes', () => {
  const ask = (content: string): { messages: { role: 'user'; content: string }[] } => ({ messages: [{ role: 'user', content }] });
  const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

  it('a request let through while closed, abandoned while the breaker is half-open, does not free the probe: one probe at a time', async () => {
    // Each distinct body fails once with 503, then streams slowly.
    const upstream = await emulator({ dialect: 'deepseek', scenario: 'fail-first=1:503;tokens=100;pace=10' });
    const r = route({
      breaker: { consecutiveFailures: 2, coolDownMs: 50 },
      targets: [{ baseUrl: upstream.url, model: 'deepseek-chat', retry: false, name: 'p' }],
    });
    await expect(firstValueFrom(r.json(ask('a')))).rejects.toMatchObject({ status: 503 }); // failure 1
    const early = r.stream(ask('a')).subscribe({ error: () => undefined }); // let through while closed, streaming
    await expect(firstValueFrom(r.json(ask('b')))).rejects.toMatchObject({ status: 503 }); // failure 2: open
    expect(r.breakerStates()).toEqual({ p: 'open' });
    await sleep(80);
    expect(r.breakerStates()).toEqual({ p: 'half_open' });
    const probe = r.stream(ask('b')).subscribe({ error: () => undefined }); // the probe, under way
    await sleep(20);
    early.unsubscribe(); // the early request's caller leaves: neither a success nor a failure
    const third = await firstValueFrom(r.json(ask('c'))).catch((error: unknown) => error);
    probe.unsubscribe();
    expect(third).toMatchObject({ code: 'upstream_busy' }); // the probe is still under way: no second probe
    expect(upstream.requests.filter((q) => JSON.stringify(q.body).includes('"c"'))).toHaveLength(0);
  });
});

describe('createChatRoute: options checked at creation', () => {
  const targets = [{ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }];

  it('a route target whose timeouts are given as undefined keeps the silence budget: a silent primary hands over', async () => {
    const silent = await emulator({ dialect: 'deepseek', scenario: 'tokens=5;stall-after=0' });
    const healthy = await emulator({ dialect: 'deepseek', scenario: 'tokens=5' });
    const r = route({
      silenceMs: 100,
      jsonTimeoutMs: 3000, // bounds the test: without the fix the primary has no first-chunk deadline at all
      targets: [
        { baseUrl: silent.url, model: 'deepseek-chat', name: 'silent', timeouts: { headers: undefined, firstChunk: undefined } },
        { baseUrl: healthy.url, model: 'deepseek-chat', name: 'healthy' },
      ],
    });
    const answer = await firstValueFrom(r.json(REQUEST));
    expect(answer.attempts?.map((a) => `${a.target}:${a.outcome}:${a.error ?? ''}`)).toEqual([
      'silent:failed:timeout:first_chunk',
      'healthy:completed:',
    ]);
  });

  it('refuses a bad maxContinuations, silenceMs or jsonTimeoutMs at creation, naming it (not every call failing, nor a deadline silently off)', () => {
    for (const [field, value] of [
      ['maxContinuations', -1],
      ['maxContinuations', 1.5],
      ['silenceMs', -1],
      ['silenceMs', Number.NaN],
      ['jsonTimeoutMs', -5],
      ['jsonTimeoutMs', Number.NaN],
    ] as const) {
      const make = (): ChatRoute => route({ targets, [field]: value });
      expect(make).toThrow(ConfigError);
      expect(make).toThrow(new RegExp(`createChatRoute: \`${field}\``));
    }
    expect(() => route({ targets, maxContinuations: 0, silenceMs: 0, jsonTimeoutMs: 1000 })).not.toThrow();
  });

  it('refuses a target\'s bad retry policy at creation (the route runs the retries), not at every call', () => {
    expect(() => route({ targets: [targets[0]!, { ...targets[1]!, retry: -1 }] })).toThrow(/retryOnTransient: `count` must be a non-negative integer/);
    expect(() => route({ targets: [{ ...targets[0]!, retry: { count: 1.5 } }] })).toThrow(ConfigError);
  });
});

describe('createChatRoute: Failover II (probes, first-token budget, budget of attempts and time, callers)', () => {
  const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
  const outcomes = (answer: { attempts?: { target: string; outcome: string }[] }): string[] => (answer.attempts ?? []).map((a) => `${a.target}:${a.outcome}`);

  it('a half-open probe is one attempt, never retried: a target still down costs its caller one fast failure, then the fallback', async () => {
    const down = await emulator({ dialect: 'deepseek', scenario: 'status=503' });
    const healthy = await emulator({ dialect: 'deepseek', scenario: 'tokens=5' });
    const events: ChatRouteEvent[] = [];
    const r = route({
      // A cool-down that outlasts the first call on a busy machine (the breaker must still be open right after it).
      breaker: { consecutiveFailures: 1, coolDownMs: 1_000 },
      targets: [
        { baseUrl: down.url, model: 'deepseek-chat', name: 'p', retry: { count: 2, baseDelayMs: 1, minDelayMs: 0 } },
        { baseUrl: healthy.url, model: 'deepseek-chat', name: 'b' },
      ],
      onEvent: (event) => events.push(event),
    });
    expect(outcomes(await firstValueFrom(r.json(REQUEST)))).toEqual(['p:retried', 'p:retried', 'p:failed', 'b:completed']);
    expect(r.breakerStates()).toMatchObject({ p: 'open' });
    await sleep(1_100);
    const before = down.requests.length;
    expect(outcomes(await firstValueFrom(r.json(REQUEST)))).toEqual(['p:failed', 'b:completed']);
    expect(down.requests.length - before).toBe(1);
    const transitions = events.flatMap((e) => (e.type === 'breaker' ? [`${e.from}→${e.to}`] : []));
    expect(transitions).toEqual(['closed→open', 'open→half_open', 'half_open→open']); // the failed probe reopened it
  });

  it('a primary down, then recovered (scaled: down 600 ms, a request every 60 ms): the breaker opens, probes one attempt at a time, and the primary serves again', async () => {
    const primary = await emulator({ dialect: 'deepseek', scenario: 'down-for=600;tokens=5' });
    const healthy = await emulator({ dialect: 'deepseek', scenario: 'tokens=5' });
    const events: ChatRouteEvent[] = [];
    const r = route({
      breaker: { consecutiveFailures: 2, coolDownMs: 100 },
      targets: [
        { baseUrl: primary.url, model: 'deepseek-chat', name: 'p', retry: { count: 2, baseDelayMs: 20, minDelayMs: 0 } },
        { baseUrl: healthy.url, model: 'deepseek-chat', name: 'b' },
      ],
      onEvent: (event) => events.push(event),
    });
    const answers: string[][] = [];
    for (let i = 0; i < 30; i++) {
      const started = Date.now();
      answers.push(outcomes(await firstValueFrom(r.json(REQUEST))));
      await sleep(Math.max(0, 60 - (Date.now() - started)));
    }
    const opened = answers.findIndex((a) => a.includes('p:skipped'));
    expect(opened).toBeGreaterThan(0);
    // After the breaker first opened, every attempt on the primary is a probe or a request of a closed breaker
    // again: never a probe with retries.
    for (const answer of answers.slice(opened)) {
      if (answer.includes('p:failed')) expect(answer).toEqual(['p:failed', 'b:completed']);
    }
    expect(answers.slice(-3)).toEqual([['p:completed'], ['p:completed'], ['p:completed']]);
    const transitions = events.flatMap((e) => (e.type === 'breaker' ? [`${e.from}→${e.to}`] : []));
    expect(transitions[0]).toBe('closed→open');
    expect(transitions.slice(-2)).toEqual(['open→half_open', 'half_open→closed']);
  });

  it('first-token budget: a silent primary hands over after silenceMs; one queuing with keep-alive comments is waited for', async () => {
    const silent = await emulator({ dialect: 'moonshot', scenario: 'queue=5000;tokens=5' }); // Moonshot queues silently
    const queuing = await emulator({ dialect: 'deepseek', scenario: 'queue=1500;keep-alive=50;tokens=5' });
    const healthy = await emulator({ dialect: 'deepseek', scenario: 'tokens=5' });
    const make = (primary: Emulator): ChatRoute =>
      route({
        silenceMs: 300,
        jsonTimeoutMs: 5000, // bounds the test
        targets: [
          { baseUrl: primary.url, model: 'deepseek-chat', name: 'p' },
          { baseUrl: healthy.url, model: 'deepseek-chat', name: 'b' },
        ],
      });
    const started = Date.now();
    const handedOver = await firstValueFrom(make(silent).json(REQUEST));
    expect(Date.now() - started).toBeLessThan(3000); // one 300 ms budget, not the 5 s queue
    expect(handedOver.attempts?.map((a) => `${a.target}:${a.outcome}:${a.error ?? ''}`)).toEqual(['p:failed:timeout:first_chunk', 'b:completed:']);
    const waited = await firstValueFrom(make(queuing).json(REQUEST));
    expect(outcomes(waited)).toEqual(['p:completed']); // 1.5 s of keep-alives, five times the silence budget
    expect(healthy.requests).toHaveLength(1);
  });

  it('maxAttempts bounds the upstream requests of one call, keeping one attempt for each target not tried yet', async () => {
    const ups = await Promise.all([0, 1, 2].map(() => emulator({ dialect: 'deepseek', scenario: 'status=503' })));
    const retry = { count: 2, baseDelayMs: 1, minDelayMs: 0 };
    const targets = ups.map((e, i) => ({ baseUrl: e.url, model: 'deepseek-chat', name: `t${i}`, retry }));
    const r = route({ breaker: false, maxAttempts: 4, targets });
    await expect(firstValueFrom(r.json(REQUEST))).rejects.toMatchObject({ status: 503 });
    expect(ups.map((e) => e.requests.length)).toEqual([2, 1, 1]); // 4 in all (9 without the budget)
    const unbounded = route({ breaker: false, maxAttempts: 50, targets });
    await expect(firstValueFrom(unbounded.json(REQUEST))).rejects.toMatchObject({ status: 503 });
    expect(ups.map((e) => e.requests.length)).toEqual([2 + 3, 1 + 3, 1 + 3]);
  });

  it('the default budget: a 3-target route with default retries makes at most 6 upstream requests per call', async () => {
    const ups = await Promise.all([0, 1, 2].map(() => emulator({ dialect: 'deepseek', scenario: 'status=503;retry-after-ms=0' })));
    const r = route({ breaker: false, targets: ups.map((e, i) => ({ baseUrl: e.url, model: 'deepseek-chat', name: `t${i}` })) });
    await expect(firstValueFrom(r.json(REQUEST))).rejects.toMatchObject({ status: 503 });
    expect(ups.reduce((n, e) => n + e.requests.length, 0)).toBe(6);
    expect(ups.every((e) => e.requests.length >= 1)).toBe(true);
  });

  it('deadlineMs: no retry is waited for past it (a Retry-After that would end after it surfaces the failure)', async () => {
    const limited = await emulator({ dialect: 'openai', scenario: 'status=429;retry-after-ms=300' });
    const r = route({ breaker: false, deadlineMs: 1000, targets: [{ baseUrl: limited.url, model: 'm', retry: 10 }] });
    const started = Date.now();
    await expect(firstValueFrom(r.json(REQUEST))).rejects.toMatchObject({ status: 429 });
    // At 0, 300 and 600 ms at the most; the next would start at 1200 ms, past the deadline (not 11 attempts).
    expect(limited.requests.length).toBeGreaterThanOrEqual(2);
    expect(limited.requests.length).toBeLessThanOrEqual(4);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  // A target that cuts every answer after 30 of its 60 tokens, and takes no prefill: each cut is restarted (json()).
  const CUTTING = 'tokens=60;pace=2;reset-after=30';
  const cutting = async (config: Partial<Parameters<typeof createChatRoute>[0]>): Promise<{ up: Emulator; error: unknown; events: ChatRouteEvent[] }> => {
    const up = await emulator({ dialect: 'deepseek', scenario: CUTTING });
    const events: ChatRouteEvent[] = [];
    const r = route({ breaker: false, ...config, targets: [{ baseUrl: up.url, model: 'deepseek-chat', name: 'c', prefill: false }], onEvent: (e) => events.push(e) });
    const error = await firstValueFrom(r.json(REQUEST)).then(() => undefined, (e: unknown) => e);
    return { up, error, events };
  };
  const cuts = (events: ChatRouteEvent[]): number => events.filter((e) => e.type === 'attempt' && e.outcome === 'cut').length;

  it('maxAttempts: 1 and a target that keeps cutting: exactly 1 upstream request, no restart, the cut surfaces', async () => {
    const { up, error, events } = await cutting({ maxAttempts: 1 });
    expect(up.requests).toHaveLength(1); // 4 before: each of the 3 continuations' restarts ignored the budget
    expect(error).toMatchObject({ code: 'network' });
    expect(cuts(events)).toBe(1);
  });

  it('restarts are bounded by maxAttempts > 1 (fewer than maxContinuations allows)', async () => {
    const { up, error, events } = await cutting({ maxAttempts: 3, maxContinuations: 10 });
    expect(up.requests).toHaveLength(3); // 11 without the budget: the first answer and 10 restarts
    expect(error).toMatchObject({ code: 'network' });
    expect(cuts(events)).toBe(3);
  });

  it('a continuation is an attempt: maxAttempts 2, a primary that cuts and a fallback whose continuation cuts too: 2 requests in all', async () => {
    const primary = await emulator({ dialect: 'deepseek', seed: 3, scenario: CUTTING });
    const fallback = await emulator({ dialect: 'deepseek', seed: 3, scenario: 'tokens=60;pace=2;reset-after=5' });
    const r = route({
      breaker: false,
      maxAttempts: 2,
      targets: [
        { baseUrl: primary.url, model: 'deepseek-chat', name: 'p', prefill: 'deepseek' },
        { baseUrl: fallback.url, model: 'deepseek-chat', name: 'f', prefill: 'deepseek' },
      ],
    });
    await expect(lastValueFrom(r.stream(REQUEST).pipe(toArray()))).rejects.toMatchObject({ code: 'network' });
    expect([primary.requests.length, fallback.requests.length]).toEqual([1, 1]); // 3 with maxAttempts 3: p continues
  });

  it('deadlineMs is a total deadline from the call\'s start: an answer cut after it is not restarted', async () => {
    // The cut comes after 30 tokens 20 ms apart (≥ 600 ms), past a 300 ms total deadline.
    const up = await emulator({ dialect: 'deepseek', scenario: 'tokens=60;pace=20;reset-after=30' });
    const r = route({ breaker: false, deadlineMs: 300, targets: [{ baseUrl: up.url, model: 'deepseek-chat', prefill: false }] });
    await expect(firstValueFrom(r.json(REQUEST))).rejects.toMatchObject({ code: 'network' });
    expect(up.requests).toHaveLength(1);
  });

  it('cutDeadlineMs starts again at each cut: a long answer cut after it is still restarted (within maxContinuations)', async () => {
    const up = await emulator({ dialect: 'deepseek', scenario: 'tokens=60;pace=20;reset-after=30' });
    const r = route({ breaker: false, cutDeadlineMs: 300, maxContinuations: 1, targets: [{ baseUrl: up.url, model: 'deepseek-chat', prefill: false }] });
    await expect(firstValueFrom(r.json(REQUEST))).rejects.toMatchObject({ code: 'network' });
    expect(up.requests).toHaveLength(2); // the restart started within 300 ms of the cut
  });

  it('refuses a bad maxAttempts or deadlineMs at creation', () => {
    const targets = [{ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }];
    expect(() => route({ targets, maxAttempts: 0 })).toThrow(/createChatRoute: `maxAttempts`/);
    expect(() => route({ targets, maxAttempts: 1.5 })).toThrow(ConfigError);
    expect(() => route({ targets, deadlineMs: -1 })).toThrow(/createChatRoute: `deadlineMs`/);
    expect(() => route({ targets, cutDeadlineMs: Number.NaN })).toThrow(/createChatRoute: `cutDeadlineMs`/);
  });

  it("one caller's failing requests do not open the breakers for another caller", async () => {
    // Every request fails with 500 on both targets (as a provider does for a body it chokes on), for caller A only.
    const a = await emulator({ dialect: 'deepseek', scenario: 'status=500' });
    const b = await emulator({ dialect: 'deepseek', scenario: 'status=500' });
    const r = route({
      breaker: { consecutiveFailures: 2 },
      targets: [
        { baseUrl: a.url, model: 'deepseek-chat', name: 'p', retry: false },
        { baseUrl: b.url, model: 'deepseek-chat', name: 'f', retry: false },
      ],
    });
    for (let i = 0; i < 5; i++) await expect(firstValueFrom(r.json(REQUEST, { caller: 'key:a' }))).rejects.toMatchObject({ status: 500 });
    expect(r.breakerStates()).toEqual({ p: 'closed', f: 'closed' });
    await expect(firstValueFrom(r.json(REQUEST, { caller: 'key:b' }))).rejects.toMatchObject({ status: 500 }); // a real outage: a second caller fails too
    expect(r.breakerStates()).toEqual({ p: 'open', f: 'open' });
  });
});
