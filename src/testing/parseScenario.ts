import { ConfigError } from '../core/errors.js';
import type { EmulatorPrefill } from './EmulatorPrefill.js';
import type { ProviderQuirks } from './ProviderQuirks.js';

/**
 * The faults and shapes the upstream emulator applies to one request. Every field is optional; `{}` is a normal,
 * healthy answer. Build one with {@link parseScenario} or write the object directly. The shapes of other hosts
 * ({@link ProviderQuirks}) are scenario items too.
 */
export interface EmulatorScenario extends ProviderQuirks {
  /** Answer with this HTTP status and the dialect's error body, before any stream byte. */
  status?: number;
  /** Answer with the dialect's "overloaded" error: DeepSeek and openai 503, Moonshot 429 `engine_overloaded_error`. */
  overloaded?: boolean;
  /** Wait hint in seconds: `Retry-After` (openai dialect) or the message text "please try again after N seconds" (moonshot). */
  retryAfter?: number;
  /** Wait hint in ms: `retry-after-ms` header (openai dialect only). */
  retryAfterMs?: number;
  /** Overrides the error body's `type`. */
  errorType?: string;
  /** Overrides the error body's `message`. */
  errorMessage?: string;
  /** Fail the first `count` attempts with `status`, then answer normally. */
  failFirst?: {
    /** How many attempts fail. */
    count: number;
    /** The status they fail with. */
    status: number;
  };
  /**
   * Queue phase: after the headers, wait this long before the first `data:`. DeepSeek writes exactly
   * `ceil(queueMs / keepAliveMs)` `: keep-alive` comments meanwhile, each after a sleep of `keepAliveMs` (the last after
   * the remainder), whatever the timing.
   */
  queueMs?: number;
  /** Interval of the keep-alive comments during the queue phase (default 100 ms). */
  keepAliveMs?: number;
  /** Send nothing at all (not even headers) for this long. */
  headersDelayMs?: number;
  /** Milliseconds between two `data:` events. */
  paceMs?: number;
  /** After this many `data:` events (or at the end, before `[DONE]`, if the answer is shorter), stop writing and keep the socket open. */
  stallAfter?: number;
  /** After this many `data:` events (or at the end if the answer is shorter), end the response cleanly without `[DONE]`. */
  eofAfter?: number;
  /** After this many `data:` events (or at the end if the answer is shorter), reset the TCP connection. */
  resetAfter?: number;
  /** Reset the TCP connection before sending any byte. */
  resetBeforeHeaders?: boolean;
  /** Write a line of truncated JSON after this many `data:` events, or at the end if the answer is shorter (then go on). */
  malformedJsonAt?: number;
  /** Write an `event: error` frame after this many `data:` events (or at the end if the answer is shorter), then end without `[DONE]`. */
  errorEventAt?: number;
  /** Write `data: {"error":…}` after this many `data:` events (or at the end if the answer is shorter), then end without `[DONE]`. */
  errorPayloadAt?: number;
  /** Write a bare non-SSE line after this many `data:` events, or at the end if the answer is shorter (then go on). */
  bareLineAt?: number;
  /** Write one extra content event whose data is about this many bytes long, after the first event. */
  hugeEvent?: number;
  /** Write a content event holding invalid UTF-8 bytes after this many `data:` events, or at the end if the answer is shorter (then go on). */
  invalidUtf8At?: number;
  /** Write `data:` without the space. */
  noSpace?: boolean;
  /** End lines with CRLF instead of LF. */
  crlf?: boolean;
  /** The finish reason of the last chunk (`insufficient_system_resource`, `length`, `content_filter`, …). */
  finish?: string;
  /** Network chunking: write the stream in pieces of this many bytes, at these cumulative byte offsets, or at random (seeded) points. */
  split?: number | number[] | 'random';
  /** Pause between two network pieces when `split` is set (default 1 ms), so that the client reads them apart. */
  splitDelayMs?: number;
  /** Answer with an HTML error page from a "proxy" with this status (200 included). */
  htmlStatus?: number;
  /** Overrides the response's `Content-Type`. */
  contentType?: string;
  /** Length of the answer, in content pieces (generated lazily: 1e6 is fine). */
  tokens?: number;
  /** Moonshot: leave `index` out of tool-call fragments after the first one of each call. */
  noToolIndex?: boolean;
  /** Every tool call's fragments carry `index: 0` (a host that counts per call): only the ids tell parallel calls apart. */
  reuseToolIndex?: boolean;
  /**
   * The model calls tools for this many steps of a conversation (assistant turns with tool calls since the last user
   * message), a tool result notwithstanding, then answers in text (default: it answers once the last message is a tool result).
   */
  toolSteps?: number;
  /** The first this-many steps' tool calls have arguments of the wrong types (a string for a number, …), then valid ones. */
  invalidToolArgs?: number;
  /** A provider that never sends `[DONE]`: end the response cleanly after the answer's last event. */
  noDone?: boolean;
  /** Overrides the error body's `code` (DeepSeek and openai shapes). */
  errorCode?: string;
  /** Refuse a request whose last message is an assistant prefix (prefill) with a 400 `invalid_request_error`. */
  rejectPrefill?: boolean;
  /**
   * Which prefill the emulated provider takes (default by dialect: `prefix` for DeepSeek, `partial` for Moonshot,
   * `assistant` for openai): `prefix` (an assistant message with `prefix: true`), `partial` (`partial: true`),
   * `assistant` (any trailing assistant message), `none`. A trailing assistant message it does not take is history:
   * it answers afresh (see `startEmulator`, rule 9).
   */
  prefill?: EmulatorPrefill;
  /** Answer 503 to every request for this many ms from the first request that asks for it, then normally (a primary that is down, then recovers). */
  downForMs?: number;
  /** A model's context window in tokens: a longer prompt gets the dialect's 400 `context_length_exceeded`. */
  contextWindow?: number;
}

type Setter = (scenario: EmulatorScenario, value: string | undefined, key: string) => void;

const count = (value: string | undefined, key: string): number => {
  if (value === undefined || !/^\d+$/.test(value.trim())) {
    throw new ConfigError(`emulator scenario: "${key}" needs a non-negative integer, as in "${key}=3".`);
  }
  return Number(value.trim());
};
const flag = (value: string | undefined, key: string): true => {
  if (value !== undefined) throw new ConfigError(`emulator scenario: "${key}" takes no value; write just "${key}".`);
  return true;
};
const text = (value: string | undefined, key: string): string => {
  if (value === undefined || value.trim() === '')
    throw new ConfigError(`emulator scenario: "${key}" needs a value, as in "${key}=…".`);
  return value.trim();
};

const SETTERS: Record<string, Setter> = {
  status: (s, v, k) => (s.status = count(v, k)),
  overloaded: (s, v, k) => (s.overloaded = flag(v, k)),
  'retry-after': (s, v, k) => (s.retryAfter = count(v, k)),
  'retry-after-ms': (s, v, k) => (s.retryAfterMs = count(v, k)),
  'error-type': (s, v, k) => (s.errorType = text(v, k)),
  'error-message': (s, v, k) => (s.errorMessage = text(v, k)),
  'fail-first': (s, v, k) => {
    const [times, status] = text(v, k).split(':');
    s.failFirst = { count: count(times, k), status: status === undefined ? 503 : count(status, k) };
  },
  queue: (s, v, k) => (s.queueMs = count(v, k)),
  'keep-alive': (s, v, k) => (s.keepAliveMs = Math.max(1, count(v, k))),
  'headers-delay': (s, v, k) => (s.headersDelayMs = count(v, k)),
  pace: (s, v, k) => (s.paceMs = count(v, k)),
  'stall-after': (s, v, k) => (s.stallAfter = count(v, k)),
  'eof-after': (s, v, k) => (s.eofAfter = count(v, k)),
  'reset-after': (s, v, k) => (s.resetAfter = count(v, k)),
  'reset-before-headers': (s, v, k) => (s.resetBeforeHeaders = flag(v, k)),
  'malformed-json-at': (s, v, k) => (s.malformedJsonAt = count(v, k)),
  'error-event-at': (s, v, k) => (s.errorEventAt = count(v, k)),
  'error-payload-at': (s, v, k) => (s.errorPayloadAt = count(v, k)),
  'bare-line-at': (s, v, k) => (s.bareLineAt = count(v, k)),
  'huge-event': (s, v, k) => (s.hugeEvent = count(v, k)),
  'invalid-utf8-at': (s, v, k) => (s.invalidUtf8At = count(v, k)),
  'no-space': (s, v, k) => (s.noSpace = flag(v, k)),
  crlf: (s, v, k) => (s.crlf = flag(v, k)),
  finish: (s, v, k) => (s.finish = text(v, k)),
  split: (s, v, k) => {
    const value = text(v, k);
    if (value === 'random') s.split = 'random';
    else if (value.includes(',')) s.split = value.split(',').map((part) => count(part, k));
    else s.split = Math.max(1, count(value, k));
  },
  'split-delay': (s, v, k) => (s.splitDelayMs = count(v, k)),
  'html-status': (s, v, k) => (s.htmlStatus = count(v, k)),
  'html-200': (s, v, k) => (s.htmlStatus = (flag(v, k), 200)),
  'content-type': (s, v, k) => (s.contentType = text(v, k)),
  tokens: (s, v, k) => (s.tokens = count(v, k)),
  'no-tool-index': (s, v, k) => (s.noToolIndex = flag(v, k)),
  'reuse-tool-index': (s, v, k) => (s.reuseToolIndex = flag(v, k)),
  'tool-steps': (s, v, k) => (s.toolSteps = count(v, k)),
  'invalid-tool-args': (s, v, k) => (s.invalidToolArgs = count(v, k)),
  'no-done': (s, v, k) => (s.noDone = flag(v, k)),
  'azure-filter': (s, v, k) => (s.azureFilter = flag(v, k)),
  'reasoning-field': (s, v, k) => {
    const field = text(v, k);
    if (field !== 'reasoning' && field !== 'reasoning_content')
      throw new ConfigError(`emulator scenario: "${k}" is reasoning or reasoning_content, got "${field}".`);
    s.reasoningField = field;
  },
  'content-parts': (s, v, k) => (s.contentParts = flag(v, k)),
  'usage-in': (s, v, k) => {
    const place = text(v, k);
    if (place !== 'x_groq') throw new ConfigError(`emulator scenario: "${k}" takes x_groq, as in "${k}=x_groq".`);
    s.usageIn = place;
  },
  refusal: (s, v, k) => (s.refusal = flag(v, k)),
  'error-code': (s, v, k) => (s.errorCode = text(v, k)),
  'reject-prefill': (s, v, k) => (s.rejectPrefill = flag(v, k)),
  prefill: (s, v, k) => {
    const kind = text(v, k);
    if (kind !== 'prefix' && kind !== 'partial' && kind !== 'assistant' && kind !== 'none')
      throw new ConfigError(`emulator scenario: "${k}" is prefix, partial, assistant or none, got "${kind}".`);
    s.prefill = kind;
  },
  'down-for': (s, v, k) => (s.downForMs = count(v, k)),
  'context-window': (s, v, k) => (s.contextWindow = count(v, k)),
};

/**
 * Parses the emulator's scenario grammar into an {@link EmulatorScenario}.
 *
 * The same text is accepted in the `x-emulator-scenario` request header, after a `#` in the model name
 * (`"deepseek-chat#queue=500;pace=5"`), in `startEmulator({ scenario })` and in `emulator.setScenario()`.
 *
 * ## Grammar
 * ```text
 * scenario := item (';' item)*        whitespace around items is ignored, empty items too
 * item     := key | key '=' value
 * ```
 * "after k events" counts the `data:` events already written (comments excluded), so `…-at=0` comes first. A fault
 * placed after more events than the answer has fires at the end of the answer, after its last event and before
 * `[DONE]` (so `eof-after=1000` on a short answer is a clean EOF after the finishing chunk: a complete answer
 * without `[DONE]`, as `no-done` writes it, never a healthy stream with `[DONE]`).
 *
 * | item | effect |
 * |---|---|
 * | `status=429` | that status with the dialect's error body, before any stream byte (the provider's own body where docs/PROVIDERS.md documents the status, else a neutral one: the status text and a type derived from it, e.g. `service_unavailable_error`) |
 * | `overloaded` | the dialect's overload error: DeepSeek and openai 503; Moonshot 429 with `engine_overloaded_error` |
 * | `retry-after=2` / `retry-after-ms=1500` | `Retry-After` / `retry-after-ms` headers (openai dialect); Moonshot writes "please try again after 2 seconds" in the message; DeepSeek ignores it |
 * | `error-type=engine_overloaded_error` / `error-message=…` | override the error body's fields |
 * | `fail-first=2:503` | the first 2 attempts fail with 503 (default status 503), the next succeed. Attempts are counted per emulator instance, per (scenario text, request body) pair; `emulator.resetAttempts()` restarts the count |
 * | `queue=500` / `keep-alive=100` | after the headers, wait 500 ms before the first event; DeepSeek writes exactly ceil(500 / 100) = 5 `: keep-alive` comments meanwhile, one after each 100 ms sleep, whatever the timing (Moonshot stays silent) |
 * | `headers-delay=2000` | send nothing at all for 2 s |
 * | `pace=5` | 5 ms between events |
 * | `stall-after=3` | after 3 events (or at the end if the answer is shorter), go silent with the socket open |
 * | `eof-after=3` | after 3 events (or at the end if the answer is shorter), end the response cleanly without `[DONE]` |
 * | `reset-after=3` / `reset-before-headers` | TCP reset after 3 events (or at the end if the answer is shorter) / before any byte |
 * | `malformed-json-at=2` | a line of truncated JSON after 2 events, then the stream goes on |
 * | `error-event-at=2` | `event: error` + `data: {"error":…}` after 2 events, then EOF without `[DONE]` |
 * | `error-payload-at=2` | `data: {"error":…}` after 2 events, then EOF without `[DONE]` |
 * | `bare-line-at=2` | a bare non-SSE line after 2 events, then the stream goes on |
 * | `huge-event=10000000` | one extra content event of about 10 MB after the first event (written lazily) |
 * | `invalid-utf8-at=2` | a content event with invalid UTF-8 bytes after 2 events, then the stream goes on |
 * | `no-space` / `crlf` | `data:` without the space / CRLF line endings |
 * | `finish=insufficient_system_resource` | the finish reason of the last chunk |
 * | `split=random` / `split=7` / `split=10,25,26` | network chunking at seeded random points / every 7 bytes / at those byte offsets — also inside multi-byte characters; `split-delay=1` ms between pieces |
 * | `html-status=502` / `html-200` | an nginx HTML error page with that status |
 * | `content-type=application/json` | override the response's Content-Type (the body is unchanged) |
 * | `tokens=20000` | an answer of 20000 content pieces, generated lazily (also header `x-emulator-tokens`) |
 * | `no-tool-index` | Moonshot: tool-call fragments after the first omit `index` |
 * | `reuse-tool-index` | every tool call's fragments carry `index: 0`: parallel calls differ only by their ids |
 * | `tool-steps=2` | the model calls tools in the first 2 steps of a conversation (assistant turns with tool calls since the last user message), a tool result notwithstanding, then answers |
 * | `invalid-tool-args=1` | the tool calls of the first step have arguments of the wrong types (`{"city":42}`), the next steps' valid ones: a model corrected by the error it was sent |
 * | `no-done` | a provider that never sends `[DONE]`: the response ends cleanly after the answer's last event |
 * | `azure-filter` | Azure OpenAI: an opening `{"choices":[],"id":"","model":"","created":0,"prompt_filter_results":[…]}` chunk, `content_filter_results` on every choice |
 * | `reasoning-field=reasoning` | reasoning pieces in `delta.reasoning` (OpenRouter, Groq, vLLM) instead of `reasoning_content` |
 * | `content-parts` | Mistral's thinking models: `delta.content` as arrays of `thinking` and `text` parts |
 * | `usage-in=x_groq` | Groq: the usage only in `x_groq.usage` of the finishing chunk |
 * | `refusal` | OpenAI: the model refuses (`delta.refusal` pieces, content `null`, `finish_reason: stop`) |
 * | `error-code=context_length_exceeded` | override the error body's `code` (DeepSeek and openai shapes) |
 * | `reject-prefill` | a request ending with an assistant prefix (DeepSeek `prefix: true`, Moonshot `partial: true`, openai: any trailing assistant message) gets a 400 `invalid_request_error` |
 * | `prefill=none` | which prefill the provider takes: `prefix` (DeepSeek's default), `partial` (Moonshot's), `assistant` (openai's: any trailing assistant message), `none` (OpenAI's own models). A trailing assistant message it does not take is answered afresh: the answer starts again (the same opening, other words: the message is history) |
 * | `down-for=60000` | 503 to every request for 60 s from the first request that asks for it (per emulator; `resetAttempts()` restarts it), then healthy |
 * | `context-window=8192` | a prompt over 8192 tokens gets the dialect's 400: "maximum context length" with code `context_length_exceeded` (Moonshot: "exceeded model token limit") |
 *
 * ## Example
 * ```ts
 * parseScenario('fail-first=2:429; pace=5'); // { failFirst: { count: 2, status: 429 }, paceMs: 5 }
 * ```
 *
 * @param text - The scenario text; `''` gives `{}`.
 * @returns The parsed scenario.
 * @throws ConfigError on an unknown key or a bad value, saying what is expected.
 */
export function parseScenario(text: string): EmulatorScenario {
  const scenario: EmulatorScenario = {};
  for (const raw of text.split(';')) {
    const item = raw.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const key = (eq === -1 ? item : item.slice(0, eq)).trim().toLowerCase();
    const value = eq === -1 ? undefined : item.slice(eq + 1);
    const setter = SETTERS[key];
    if (setter === undefined) {
      throw new ConfigError(
        `emulator scenario: unknown item "${key}". Known items: ${Object.keys(SETTERS).join(', ')}.`,
      );
    }
    setter(scenario, value, key);
  }
  return scenario;
}
