import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hashString } from './hashString.js';
import { ChatCompletionRequest } from '../core/schemas/index.js';
import type { EmulatorDialect } from './EmulatorDialect.js';
import type { EmulatorPrefill } from './EmulatorPrefill.js';
import { createRequestLog, type EmulatorRequestLogConfig } from './createRequestLog.js';
import { dialectCompletion } from './dialectCompletion.js';
import { dialectError } from './dialectError.js';
import { dialectFrames } from './dialectFrames.js';
import { deepseekThinkingError } from './deepseekThinkingError.js';
import { toolHistoryError } from './toolHistoryError.js';
import type { ProviderQuirks } from './ProviderQuirks.js';
import { parseScenario, type EmulatorScenario } from './parseScenario.js';
import { planAnswer, type PlanAnswerConfig } from './planAnswer.js';
import { continuePlan } from './continuePlan.js';
import { messageText } from './messageText.js';
import { streamAnswer, type StreamProgress } from './streamAnswer.js';

/** Options of {@link startEmulator}. */
export interface EmulatorConfig {
  /** The provider imitated (default `'deepseek'`). */
  dialect?: EmulatorDialect;
  /** Seed of the deterministic answers (default 0). */
  seed?: number;
  /** Port to listen on (default 0: an ephemeral port). */
  port?: number;
  /** Interface to listen on (default `'127.0.0.1'`). */
  host?: string;
  /** When set, requests must carry `Authorization: Bearer <apiKey>` (else 401 in the dialect's shape). */
  apiKey?: string;
  /** Default scenario of every request (grammar of `parseScenario`), overridden item by item per request. */
  scenario?: string | EmulatorScenario;
  /**
   * Whether a request may ask for faults itself (the `x-emulator-scenario` and `x-emulator-tokens` headers, a
   * `#scenario` suffix of the model name). Default `true`; `false`: every request gets the default scenario — what
   * an emulator behind a server that passes its clients' requests through (the gateway) should do.
   */
  requestScenarios?: boolean;
  /** Default milliseconds between two streamed events (default 0). */
  paceMs?: number;
  /**
   * How much of what it received the emulator keeps in `requests` (bodies and headers), oldest dropped first:
   * default `{ maxRequests: 1000, maxBytes: 33 554 432 }` (32 MiB). `false` keeps none (`waitForRequest` still sees
   * requests as they arrive): what a long-running emulator, such as the gateway's built-in one, should do.
   */
  requestLog?: EmulatorRequestLogConfig | false;
}

/** What the emulator received, and what became of it. */
export interface EmulatorRequest extends StreamProgress {
  /** 1, 2, … in arrival order. */
  seq: number;
  /** The HTTP method. */
  method: string;
  /** The request path (`/v1/chat/completions`). */
  path: string;
  /** Request headers; `authorization` is masked. */
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (`undefined` when it was not JSON). */
  body: unknown;
  /** The effective scenario. */
  scenario: EmulatorScenario;
  /** The status answered (0 while none). */
  status: number;
  /** The client went away before the response was complete (not counting faults the emulator injected). */
  closedEarly: boolean;
  /** The response was written to the end. */
  completed: boolean;
  /** Resolves when the response is over, either way. */
  closed: Promise<void>;
}

/** A running emulator. */
export interface Emulator {
  /** Base URL including `/v1`: `${url}/chat/completions` is the endpoint. */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /** The requests received, in order: the latest ones, within `config.requestLog` (all of them up to its limits). */
  readonly requests: EmulatorRequest[];
  /** How many requests the client abandoned before their response was complete. */
  readonly aborted: number;
  /** The default scenario in force. */
  readonly scenario: EmulatorScenario;
  /** Replaces the default scenario (text or object); no argument resets it. */
  setScenario(scenario?: string | EmulatorScenario): void;
  /** Restarts the attempt counters of `fail-first`. */
  resetAttempts(): void;
  /** Resolves with the first request (past or future) matching `predicate`. */
  waitForRequest(predicate?: (request: EmulatorRequest) => boolean): Promise<EmulatorRequest>;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

/** The prefill each dialect takes unless the scenario says otherwise (`prefill=…`). */
const DIALECT_PREFILL: Readonly<Record<EmulatorDialect, EmulatorPrefill>> = { deepseek: 'prefix', moonshot: 'partial', openai: 'assistant' };

const HTML = (status: number): string =>
  `<html>\r\n<head><title>${status} Bad Gateway</title></head>\r\n<body>\r\n<center><h1>${status} Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;

/** The provider's words for a prompt over the context window (OpenAI/DeepSeek, Moonshot). */
const contextLengthMessage = (dialect: EmulatorDialect, window: number, prompt: number): string =>
  dialect === 'moonshot'
    ? `Invalid request: Your request exceeded model token limit: ${window}`
    : `This model's maximum context length is ${window} tokens. However, you requested ${prompt} tokens. Please reduce the length of the messages.`;

/** The request of a continuation of `prefix` with its token limits raised by the pieces the prefix covers. */
const beyondPrefix = (request: ChatCompletionRequest, prefix: string, config: PlanAnswerConfig): ChatCompletionRequest => {
  if (typeof request.max_tokens !== 'number' && typeof request.max_completion_tokens !== 'number') return request;
  const { max_tokens: _max, max_completion_tokens: _maxCompletion, ...unlimited } = request;
  let covered = 0;
  let length = 0;
  for (const piece of planAnswer(unlimited as ChatCompletionRequest, config).choices[0]?.content() ?? []) {
    if (length >= prefix.length) break;
    length += piece.length;
    covered++;
  }
  return {
    ...request,
    ...(typeof request.max_tokens === 'number' ? { max_tokens: request.max_tokens + covered } : {}),
    ...(typeof request.max_completion_tokens === 'number' ? { max_completion_tokens: request.max_completion_tokens + covered } : {}),
  };
};

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });

/**
 * Starts an OpenAI-compatible upstream emulator speaking the Moonshot, DeepSeek or OpenAI dialect, with fault injection.
 *
 * 1. A real `node:http` server serving `POST /v1/chat/completions` (and `/chat/completions`): `stream: true` gives
 *    SSE ending in `data: [DONE]`, otherwise one `chat.completion` JSON — byte-faithful to the dialect.
 * 2. Answers are a pure function of the request and `seed`: the same request gives the same bytes.
 * 3. Faults per request: header `x-emulator-scenario`, a `#scenario` suffix of the model name, or the default
 *    scenario (`config.scenario`, `setScenario`); items of later sources win. Grammar: `parseScenario`.
 *    `x-emulator-tokens: N` asks for a long answer. `fail-first` counts attempts per emulator instance and per
 *    (scenario text, request body) pair.
 * 4. Backpressure and cancellation: a slow reader pauses the generation; a client that goes away stops it at once,
 *    clears its timers and is recorded (`request.closedEarly`, `emulator.aborted`).
 * 5. Other hosts' shapes are scenario items too (`azure-filter`, `reasoning-field=reasoning`, `content-parts`,
 *    `usage-in=x_groq`, `refusal`, `no-done`: see {@link ProviderQuirks}).
 * 6. Every request is recorded as received (`emulator.requests`, `waitForRequest`): its parsed `body` is what the
 *    upstream got, field for field, so a test can assert that a gateway forwarded a request intact. Find a record
 *    with `waitForRequest(predicate)` rather than by position.
 * 7. The DeepSeek dialect answers 400 `invalid_request_error` ("The `reasoning_content` in the thinking mode must be
 *    passed back to the API."), as DeepSeek does, when a thinking-mode request (`deepseek-reasoner`, or
 *    `thinking: {"type": "enabled"}`) sends back an assistant message with tool calls but without its
 *    `reasoning_content`. Every dialect answers 400 to tool turns that do not pair up (`toolHistoryError`): a `tool`
 *    message without its `tool_call_id`, or not answering a call of the assistant turn just before it, or an assistant
 *    turn whose calls are not each answered by a `tool` message.
 * 8. Bounded memory: `requests` keeps the latest requests within `config.requestLog` (by default 1000 requests and
 *    32 MiB of bodies and headers; `false`: none), so an emulator serving for days does not keep every body.
 * 9. Continuation: a request ending with an assistant prefix — DeepSeek `prefix: true` (also on `/beta/chat/completions`,
 *    DeepSeek's beta base URL), Moonshot `partial: true`, or, in the openai dialect, any trailing assistant message —
 *    gets the rest of the answer the request without the prefix gets: prefix + continuation is the
 *    uncut answer; its `max_tokens` counts the tokens it generates (the prefix is prompt). `reject-prefill` refuses such
 *    a request with a 400 instead. The scenario's `prefill=…` says which prefill the provider takes (`prefix`,
 *    `partial`, `assistant`, `none`); a trailing assistant message it does not take is history, as a real provider
 *    treats it: the model answers afresh — the answer starts again, with the same opening and other words (never the
 *    continuation it was asked for).
 * 10. The emulator belongs to the process that starts it: in a node:cluster worker it listens on a port of its own
 *    (`exclusive`), not on one the primary shares out among the workers, whose connections would then reach the other
 *    workers' emulators (and end when one of those shuts down).
 *
 * ## Example
 * ```ts
 * const emulator = await startEmulator({ dialect: 'moonshot', seed: 1 });
 * const client = new OpenAI({ baseURL: emulator.url, apiKey: 'test' });
 * const stream = await client.chat.completions.create(
 *   { model: 'moonshot-v1-8k', messages: [{ role: 'user', content: '你好' }], stream: true },
 *   { headers: { 'x-emulator-scenario': 'pace=5;eof-after=3' } },
 * );
 * await emulator.close();
 * ```
 *
 * @param config - Dialect, seed, port, key and default scenario.
 * @returns The running emulator, once it listens.
 */
export async function startEmulator(config: EmulatorConfig = {}): Promise<Emulator> {
  const dialect = config.dialect ?? 'deepseek';
  const seed = config.seed ?? 0;
  const toScenario = (s: string | EmulatorScenario | undefined): EmulatorScenario =>
    typeof s === 'string' ? parseScenario(s) : { ...(s ?? {}) };
  let defaults: EmulatorScenario = {
    ...(config.paceMs ? { paceMs: config.paceMs } : {}),
    ...toScenario(config.scenario),
  };
  let attempts = new Map<string, number>();
  let downSince: number | undefined;
  const log = createRequestLog<EmulatorRequest>(config.requestLog);
  const requests = log.records;
  let received = 0;
  const waiters: Array<{ predicate: (r: EmulatorRequest) => boolean; resolve: (r: EmulatorRequest) => void }> = [];
  let aborted = 0;
  let closing = false;
  const notify = (record: EmulatorRequest): void => {
    for (const waiter of [...waiters]) {
      if (waiter.predicate(record)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(record);
      }
    }
  };

  const handle = async (
    req: IncomingMessage,
    res: ServerResponse,
    record: EmulatorRequest,
    signal: AbortSignal,
  ): Promise<void> => {
    const send = (status: number, headers: Record<string, string>, body: string): void => {
      record.status = status;
      res.writeHead(status, headers).end(body);
    };
    const fail = (status: number, message?: string, scenario: EmulatorScenario = {}): void => {
      const error = dialectError(dialect, status, {
        ...(message !== undefined ? { message } : {}),
        ...(scenario.errorMessage !== undefined ? { message: scenario.errorMessage } : {}),
        ...(scenario.errorType !== undefined ? { type: scenario.errorType } : {}),
        ...(scenario.retryAfter !== undefined ? { retryAfter: scenario.retryAfter } : {}),
        ...(scenario.retryAfterMs !== undefined ? { retryAfterMs: scenario.retryAfterMs } : {}),
        ...(scenario.errorCode !== undefined ? { code: scenario.errorCode } : {}),
      });
      send(error.status, error.headers, error.body);
    };
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    // `/beta/chat/completions` too: DeepSeek's chat prefix completion lives on its beta base URL.
    if (!/^(\/v1)?(\/beta)?\/chat\/completions$/.test(path)) return fail(404, `Not found: ${path}`);
    if (req.method !== 'POST') return fail(405, `Method ${req.method} not allowed; use POST`);
    const raw = await readBody(req);
    try {
      record.body = JSON.parse(raw);
    } catch {
      record.body = undefined;
    }
    log.sized(record, raw.length);
    notify(record);
    const model = (record.body as { model?: unknown } | undefined)?.model;
    const asked = config.requestScenarios !== false;
    const suffix = asked && typeof model === 'string' && model.includes('#') ? model.slice(model.indexOf('#') + 1) : '';
    const header = asked ? req.headers['x-emulator-scenario'] : undefined;
    const tokens = asked ? req.headers['x-emulator-tokens'] : undefined;
    let scenario: EmulatorScenario;
    try {
      scenario = {
        ...defaults,
        ...parseScenario(suffix),
        ...parseScenario(Array.isArray(header) ? header.join(';') : (header ?? '')),
        ...(typeof tokens === 'string' ? parseScenario(`tokens=${tokens}`) : {}),
      };
    } catch (error) {
      return fail(400, (error as Error).message);
    }
    record.scenario = scenario;
    if (scenario.resetBeforeHeaders) {
      record.closedByFault = true;
      res.socket?.resetAndDestroy();
      return;
    }
    if (scenario.headersDelayMs) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, scenario.headersDelayMs);
        function done(): void {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
        signal.addEventListener('abort', done);
      });
      if (signal.aborted) return;
    }
    if (config.apiKey !== undefined && req.headers.authorization !== `Bearer ${config.apiKey}`) return fail(401);
    if (record.body === undefined) return fail(400, 'Invalid request: the body is not valid JSON');
    const parsed = ChatCompletionRequest.safeParse(record.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.join('.') || 'body';
      const range =
        (issue?.code === 'too_big' || issue?.code === 'too_small') &&
        (issue as { origin?: string }).origin === 'number';
      return fail(
        dialect === 'deepseek' && range ? 422 : 400,
        `Invalid request: ${where}: ${issue?.message ?? 'invalid'}`,
      );
    }
    // DeepSeek refuses a thinking-mode tool call sent back without its reasoning_content (before any other answer).
    const thinkingError = dialect === 'deepseek' ? deepseekThinkingError(parsed.data) : undefined;
    if (thinkingError !== undefined) return fail(400, thinkingError);
    // Every provider refuses tool turns that do not pair up: a tool message without its id or its call, a call unanswered.
    const historyError = toolHistoryError(parsed.data, dialect);
    if (historyError !== undefined) return fail(400, historyError);
    if (scenario.failFirst !== undefined) {
      // A digest of the pair, not the body itself (a counter per distinct body must not keep every body), and at most
      // 10 000 pairs (the oldest forgotten).
      const key = createHash('sha256').update(`${JSON.stringify(scenario.failFirst)}\n${header ?? ''}\n${raw}`).digest('base64');
      const attempt = (attempts.get(key) ?? 0) + 1;
      attempts.delete(key);
      attempts.set(key, attempt);
      if (attempts.size > 10_000) attempts.delete(attempts.keys().next().value as string);
      if (attempt <= scenario.failFirst.count) return fail(scenario.failFirst.status, undefined, scenario);
    }
    if (scenario.downForMs !== undefined) {
      // Down for a while from the first request that asked for it, then healthy (per emulator instance).
      downSince ??= Date.now();
      if (Date.now() - downSince < scenario.downForMs) return fail(503, undefined, scenario);
    }
    if (scenario.contextWindow !== undefined) {
      const prompt = planAnswer(parsed.data, { dialect, seed }).promptTokens;
      if (prompt > scenario.contextWindow) return fail(400, contextLengthMessage(dialect, scenario.contextWindow, prompt), { errorCode: 'context_length_exceeded', ...scenario });
    }
    if (scenario.overloaded) {
      // DeepSeek documents its overload as 503; Moonshot's is a 429 with engine_overloaded_error (no 503 documented).
      if (dialect !== 'moonshot') return fail(503, undefined, scenario);
      return fail(429, undefined, { ...scenario, errorType: scenario.errorType ?? 'engine_overloaded_error' });
    }
    if (scenario.status !== undefined && scenario.status >= 300) return fail(scenario.status, undefined, scenario);
    if (scenario.htmlStatus !== undefined) {
      return send(
        scenario.htmlStatus,
        { 'content-type': scenario.contentType ?? 'text/html' },
        HTML(scenario.htmlStatus),
      );
    }
    // An assistant prefix to continue, in the prefill the provider takes: DeepSeek's `prefix: true` (documented on its
    // beta base URL; taken on both here), Moonshot's `partial: true`, or (openai dialect) any trailing assistant message,
    // as servers that take a prefill do. One it does not take stays in the conversation: the model answers afresh.
    const last = parsed.data.messages[parsed.data.messages.length - 1] as Record<string, unknown> | undefined;
    const takes = scenario.prefill ?? DIALECT_PREFILL[dialect];
    const prefixed =
      last?.role === 'assistant' &&
      (takes === 'prefix' ? last.prefix === true : takes === 'partial' ? last.partial === true : takes === 'assistant');
    if (prefixed && scenario.rejectPrefill) {
      return fail(400, 'Invalid request: this model does not support an assistant message as the last message (prefill)', scenario);
    }
    const request = prefixed ? { ...parsed.data, messages: parsed.data.messages.slice(0, -1) } : parsed.data;
    const quirks: ProviderQuirks = {
      ...(scenario.azureFilter ? { azureFilter: true } : {}),
      ...(scenario.reasoningField ? { reasoningField: scenario.reasoningField } : {}),
      ...(scenario.contentParts ? { contentParts: true } : {}),
      ...(scenario.usageIn ? { usageIn: scenario.usageIn } : {}),
      ...(scenario.refusal ? { refusal: true } : {}),
    };
    const planConfig = {
      dialect,
      seed,
      ...(scenario.tokens !== undefined ? { tokens: scenario.tokens } : {}),
      ...(scenario.finish !== undefined ? { finish: scenario.finish } : {}),
      ...(scenario.toolSteps !== undefined ? { toolSteps: scenario.toolSteps } : {}),
      ...(scenario.invalidToolArgs !== undefined ? { invalidToolArgs: scenario.invalidToolArgs } : {}),
    };
    // A continuation's token limit counts the tokens it generates, not its prefix's (the prefix is prompt).
    const planned = planAnswer(prefixed ? beyondPrefix(request, messageText(last?.content), planConfig) : request, planConfig);
    const plan = prefixed
      ? continuePlan(planned, messageText(last?.content), typeof last?.reasoning_content === 'string' ? last.reasoning_content : '')
      : planned;
    if (request.stream !== true) {
      return send(
        200,
        { 'content-type': scenario.contentType ?? 'application/json' },
        dialectCompletion(plan, dialect, quirks),
      );
    }
    record.status = 200;
    const head = JSON.stringify({
      id: plan.id,
      object: 'chat.completion.chunk',
      created: plan.created,
      model: plan.model,
    });
    await streamAnswer({
      res,
      dialect,
      scenario,
      signal,
      progress: record,
      seed: hashString(raw, seed),
      chunkHead: `${head.slice(0, -1)},`,
      frames: dialectFrames(plan, dialect, {
        includeUsage: request.stream_options?.include_usage === true,
        ...(scenario.noToolIndex ? { noToolIndex: true } : {}),
        ...(scenario.reuseToolIndex ? { reuseToolIndex: true } : {}),
        quirks,
      }),
    });
  };

  const server = createServer((req, res) => {
    const controller = new AbortController();
    let markClosed!: () => void;
    const record: EmulatorRequest = {
      seq: ++received,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: { ...req.headers, ...(req.headers.authorization ? { authorization: 'Bearer ***' } : {}) },
      body: undefined,
      scenario: {},
      status: 0,
      framesWritten: 0,
      bytesWritten: 0,
      waitingForDrain: false,
      closedByFault: false,
      closedEarly: false,
      completed: false,
      closed: new Promise<void>((resolve) => (markClosed = resolve)),
    };
    log.add(record);
    notify(record);
    res.on('close', () => {
      record.completed = res.writableFinished;
      if (!res.writableFinished && !record.closedByFault && !closing) {
        record.closedEarly = true;
        aborted++;
      }
      controller.abort();
      markClosed();
    });
    handle(req, res, record, controller.signal).catch((error: unknown) => {
      if (!res.headersSent) {
        const body = dialectError(dialect, 500, { message: `emulator failure: ${(error as Error).message}` });
        res.writeHead(500, body.headers).end(body.body);
      } else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: config.port ?? 0, host: config.host ?? '127.0.0.1', exclusive: true }, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host ?? '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`,
    port,
    requests,
    get aborted() {
      return aborted;
    },
    get scenario() {
      return defaults;
    },
    setScenario(scenario) {
      defaults = { ...(config.paceMs ? { paceMs: config.paceMs } : {}), ...toScenario(scenario) };
    },
    resetAttempts() {
      attempts = new Map();
      downSince = undefined;
    },
    waitForRequest(predicate = () => true) {
      const found = requests.find(predicate);
      return found ? Promise.resolve(found) : new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
    close() {
      closing = true;
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
