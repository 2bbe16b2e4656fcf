import type { ChatCompletionChunk } from '../core/schemas/upstream.js';
import { matchesChunkShape } from './matchesChunkShape.js';

/** The fast path of `decodeChunk`; see {@link createChunkScanner}. */
export interface ChunkScanner {
  /**
   * The chunk `JSON.parse(data)` gives — deep-equal, same key order, every object and array new — when `data` has the
   * common shape and its top-level fields match what an earlier chunk of the stream was validated with; `undefined`
   * for anything else (the caller parses and validates it the ordinary way).
   */
  scan(data: string): ChatCompletionChunk | undefined;
}

type Json = Record<string, unknown>;

const CHOICES = '"choices":[';
const QUOTE = 34;
const BACKSLASH = 92;
const CLOSE_BRACE = 125;
const ZERO = 48;
const NINE = 57;
/** The most digits of an `index` read here (a safe integer, as the schema wants); longer ones take the ordinary path. */
const MAX_DIGITS = 9;
/** Below this length V8 copies a `slice` (SlicedString's minimum): a longer one would keep the whole event alive. */
const MIN_SLICED = 13;
/** Chunks that must come through the ordinary path before the scanner gives up on a stream that never matches. */
const GIVE_UP_AFTER = 16;
/** New heads and tails learned at most per stream (one that changes on every chunk makes the scanner cost more). */
const MAX_LEARNED = 8;

// Delta fields the scanner reads (a bit each, to refuse a repeated key): the rest of a delta takes the ordinary path.
const ROLE = 1;
const CONTENT = 2;
const REASONING_CONTENT = 4;
const REASONING = 8;
const TOOL_CALLS = 16;

/**
 * `data` has `text` at `at`. `lastIndexOf` from `at` compares at `at` first, as a block (several times faster than a
 * character loop or `startsWith` with a position, which V8 never inlines), and a miss is rare: the chunk is then
 * parsed whole anyway.
 */
const has = (data: string, at: number, text: string): boolean => data.lastIndexOf(text, at) === at;

// Scratch results of the readers below (they return the index after what they read, or -1).
let value: unknown;
let digits = 0;
let end = 0;
// What the last readChoices saw, for a template: the kind of its delta's one string member (0: not one), where that
// string starts, and the choice's index, tool-call index and optional members.
let single = 0;
let singleAt = 0;
let singleEnd = 0;
let choiceIndex = 0;
let toolIndex = 0;
let withLogprobs = false;
let withFinish = false;

/**
 * Creates the chunk scanner of `decodeChunk`: for the chunk every OpenAI-compatible provider streams —
 *
 * ```text
 * {"id":…,"object":…,"created":…,"model":…,"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}
 * ```
 *
 * — it reads the one choice directly and reuses the top-level fields (`id`, `model`, `created`, …: the same text on
 * every chunk of an answer) as they were parsed and validated the first time, instead of parsing and validating the
 * whole chunk again.
 *
 * 1. The text before `"choices":[` (the head) and after its `]` (the tail) are parsed once, as one chunk with a
 *    sentinel for `choices`, and checked with `matchesChunkShape`; they are remembered only when the sentinel is the
 *    chunk's `choices`, every other value is a string, number, boolean or `null` (nothing to share between chunks)
 *    and there is no `error`. A later chunk with the same head and tail reuses them. A stream whose head or tail
 *    changes on every chunk (a per-chunk field) stops being learned after {@link MAX_LEARNED} of them.
 * 2. The choices must be one choice `{"index":N,"delta":{…}[,"logprobs":null][,"finish_reason":null]}`, its delta
 *    the fields `role`, `content`, `reasoning_content`, `reasoning` (each a string or `null`) and `tool_calls` (one
 *    argument fragment `[{"index":N,"function":{"arguments":"…"}}]`), each at most once, with no whitespace. Such a
 *    chunk matches the `ChatCompletionChunk` schema by construction.
 * 3. Strings long enough that a slice would keep the event text alive are read by `JSON.parse` of their literal;
 *    shorter ones are sliced, their escapes replaced here. A control character or a bad escape refuses the chunk
 *    (`JSON.parse` reports it).
 * 4. Anything else is `undefined`. After {@link GIVE_UP_AFTER} chunks without one match, the scanner stops trying.
 *
 * @returns A scanner for one stream (it remembers the stream's head and tail).
 */
export function createChunkScanner(): ChunkScanner {
  let head: string | undefined; // the validated text before the choices' `[`
  let tail = ''; // the validated text after the choices' `]`
  let top: Json | undefined; // the fields of both, parsed (with `choices: []`)
  let shape = GENERIC; // how a chunk is built from `top`
  let learned = 0;
  let hits = 0;
  let misses = 0;
  let stopped = false;

  // The template: the whole text of the last chunk but its one string (before: `prefix`, after: `suffix`).
  let prefix: string | undefined;
  let suffix = '';
  let kind = 0;
  let index = 0;
  let call = 0;
  let logprobs = false;
  let finish = false;

  const miss = (): undefined => {
    if (++misses >= GIVE_UP_AFTER && hits === 0) stopped = true;
    return undefined;
  };

  /** Parses and checks a new head and tail; true if they can be reused. */
  const learn = (before: string, after: string): boolean => {
    if (learned >= MAX_LEARNED) return false; // a field that changes on every chunk: the ordinary path is cheaper
    learned++;
    const probe = probeOf(before, after);
    if (probe === undefined) return false;
    head = copyOf(before);
    tail = copyOf(after);
    prefix = undefined; // a template holds the fields of the head and tail it was made with
    top = probe;
    shape = shapeOf(probe);
    return true;
  };

  const chunkOf = (choices: unknown[]): ChatCompletionChunk => {
    const t = top!;
    // The usual heads as literals (one hidden class each, as the consumers downstream like); any other by a copy.
    if (shape === PLAIN)
      return {
        id: t['id'],
        object: t['object'],
        created: t['created'],
        model: t['model'],
        choices,
      } as ChatCompletionChunk;
    if (shape === FINGERPRINTED)
      return {
        id: t['id'],
        object: t['object'],
        created: t['created'],
        model: t['model'],
        system_fingerprint: t['system_fingerprint'],
        choices,
      } as ChatCompletionChunk;
    if (shape === DEEPSEEK)
      return {
        id: t['id'],
        object: t['object'],
        created: t['created'],
        model: t['model'],
        system_fingerprint: t['system_fingerprint'],
        choices,
        usage: t['usage'],
      } as ChatCompletionChunk;
    const chunk: Json = { ...t };
    chunk['choices'] = choices;
    return chunk as ChatCompletionChunk;
  };

  return {
    scan(data) {
      if (stopped) return undefined;
      if (prefix !== undefined && has(data, 0, prefix)) {
        // Everything but the one string as in the last chunk: two block compares and the string.
        const after = readString(data, prefix.length);
        if (after !== -1 && data.length - after === suffix.length && has(data, after, suffix)) {
          hits++;
          const delta: Json =
            kind === CONTENT
              ? { content: value }
              : kind === REASONING_CONTENT
                ? { reasoning_content: value }
                : { tool_calls: [{ index: call, function: { arguments: value } }] };
          return chunkOf(choicesOf(index, delta, logprobs, finish));
        }
      }
      let at: number;
      let known = false;
      if (head !== undefined && has(data, 0, head)) {
        at = head.length;
        known = true;
      } else {
        const found = data.indexOf(CHOICES);
        if (found === -1) return miss();
        at = found + CHOICES.length - 1;
      }
      const choices = readChoices(data, at);
      if (choices === undefined) return miss();
      const after = end;
      if (!(known && data.length - after === tail.length && data.endsWith(tail))) {
        if (!learn(data.slice(0, at), data.slice(after))) return miss();
      }
      hits++;
      if (single !== 0) {
        // A template for the chunks to come: the text before and after the delta's one string.
        prefix = copyOf(data.slice(0, singleAt));
        suffix = copyOf(data.slice(singleEnd));
        kind = single;
        index = choiceIndex;
        call = toolIndex;
        logprobs = withLogprobs;
        finish = withFinish;
      }
      return chunkOf(choices);
    },
  };
}

/**
 * The fields of a chunk `before + choices + after`, parsed and checked, with `choices: []`; `undefined` unless the
 * choices' place is the chunk's (top-level, last) `choices` member, every other field a primitive, no `error`, and
 * the schema accepts it. Two sentinels tell the place: a repeated `choices` key elsewhere would win over one of them.
 * The sentinels are literals (`false`, `true`), which no text after them can extend: a number would be (`-2` then
 * `e0` or `.0` is still -2), and `after` would pass for valid although `[…]e0` is not JSON.
 */
function probeOf(before: string, after: string): Json | undefined {
  let probe: unknown;
  try {
    if ((JSON.parse(`${before}false${after}`) as Json | null)?.['choices'] !== false) return undefined;
    probe = JSON.parse(`${before}true${after}`);
  } catch {
    return undefined;
  }
  if (typeof probe !== 'object' || probe === null || (probe as Json)['choices'] !== true) return undefined;
  const fields = probe as Json;
  fields['choices'] = [];
  if (!matchesChunkShape(fields)) return undefined;
  for (const key of Object.keys(fields)) {
    const field = fields[key];
    if (key === 'choices') continue;
    if (key === 'error' && field !== null) return undefined;
    if (typeof field === 'object' && field !== null) return undefined;
  }
  return fields;
}

const GENERIC = 0;
const PLAIN = 1;
const FINGERPRINTED = 2;
const DEEPSEEK = 3;
const PLAIN_KEYS = 'id,object,created,model,choices';
const FINGERPRINTED_KEYS = 'id,object,created,model,system_fingerprint,choices';
const DEEPSEEK_KEYS = 'id,object,created,model,system_fingerprint,choices,usage';

/**
 * A copy of `text` that does not keep alive the string it was sliced from (a network read's text can be 64 KB): a
 * cons string, flattened by `slice` into a new string of its own.
 */
const copyOf = (text: string): string => `${text} `.slice(0, -1);

/** Which literal builds a chunk with the keys of `top`, in their order. */
function shapeOf(top: Json): number {
  const keys = Object.keys(top).join(',');
  if (keys === PLAIN_KEYS) return PLAIN;
  if (keys === FINGERPRINTED_KEYS) return FINGERPRINTED;
  return keys === DEEPSEEK_KEYS ? DEEPSEEK : GENERIC;
}

/** The choices array at `at` (its `[`); the index after its `]` in `end`. `undefined` if not the common shape. */
function readChoices(data: string, at: number): unknown[] | undefined {
  if (!has(data, at, '[{"index":')) return undefined;
  at = readIndex(data, at + 10);
  if (at === -1) return undefined;
  const index = digits;
  if (!has(data, at, ',"delta":{')) return undefined;
  const delta: Json = {};
  at = readDelta(data, at + 10, delta);
  if (at === -1) return undefined;
  choiceIndex = index;
  let logprobs = false;
  if (has(data, at, ',"logprobs":null')) {
    logprobs = true;
    at += 16;
  }
  let finish = false;
  if (has(data, at, ',"finish_reason":null')) {
    finish = true;
    at += 21;
  }
  if (!has(data, at, '}]')) return undefined;
  end = at + 2;
  withLogprobs = logprobs;
  withFinish = finish;
  return choicesOf(index, delta, logprobs, finish);
}

/** One choice in an array, one literal per shape: the keys in the order of the text. */
function choicesOf(index: number, delta: Json, logprobs: boolean, finish: boolean): unknown[] {
  if (finish)
    return [logprobs ? { index, delta, logprobs: null, finish_reason: null } : { index, delta, finish_reason: null }];
  return [logprobs ? { index, delta, logprobs: null } : { index, delta }];
}

/** Reads the delta's members from `at` (after its `{`) into `delta`; the index after its `}`, or -1. */
function readDelta(data: string, at: number, delta: Json): number {
  let seen = 0;
  let members = 0;
  single = 0;
  if (data.charCodeAt(at) === CLOSE_BRACE) return at + 1;
  for (;;) {
    members++;
    if (members === 2) single = 0;
    let key: string;
    let bit: number;
    if (has(data, at, '"content":')) {
      key = 'content';
      bit = CONTENT;
      at += 10;
    } else if (has(data, at, '"tool_calls":')) {
      if ((seen & TOOL_CALLS) !== 0) return -1;
      seen |= TOOL_CALLS;
      at = readToolCallFragment(data, at + 13);
      if (at === -1) return -1;
      delta['tool_calls'] = value;
      if (members === 1) single = TOOL_CALLS;
      key = '';
      bit = 0;
    } else if (has(data, at, '"reasoning_content":')) {
      key = 'reasoning_content';
      bit = REASONING_CONTENT;
      at += 20;
    } else if (has(data, at, '"role":')) {
      key = 'role';
      bit = ROLE;
      at += 7;
    } else if (has(data, at, '"reasoning":')) {
      key = 'reasoning';
      bit = REASONING;
      at += 12;
    } else return -1;
    if (bit !== 0) {
      if ((seen & bit) !== 0) return -1;
      seen |= bit;
      const from = at;
      at = readNullableString(data, at);
      if (at === -1) return -1;
      delta[key] = value;
      if (members === 1 && value !== null && (bit === CONTENT || bit === REASONING_CONTENT)) {
        single = bit;
        singleAt = from;
        singleEnd = at;
      }
    }
    const next = data.charCodeAt(at);
    if (next === CLOSE_BRACE) return at + 1;
    if (next !== 44) return -1; // ,
    at++;
  }
}

/** Reads `[{"index":N,"function":{"arguments":"…"}}]` at `at` into `value`; the index after it, or -1. */
function readToolCallFragment(data: string, at: number): number {
  if (!has(data, at, '[{"index":')) return -1;
  at = readIndex(data, at + 10);
  if (at === -1) return -1;
  const index = digits;
  if (!has(data, at, ',"function":{"arguments":')) return -1;
  toolIndex = index;
  singleAt = at + 25;
  at = readString(data, at + 25);
  singleEnd = at;
  if (at === -1 || !has(data, at, '}}]')) return -1;
  value = [{ index, function: { arguments: value } }];
  return at + 3;
}

/** Reads a non-negative integer without leading zeros (at most {@link MAX_DIGITS} digits) into `digits`. */
function readIndex(data: string, at: number): number {
  let n = 0;
  let i = at;
  for (; i < data.length && i - at <= MAX_DIGITS; i++) {
    const c = data.charCodeAt(i);
    if (c < ZERO || c > NINE) break;
    n = n * 10 + (c - ZERO);
  }
  const length = i - at;
  if (length === 0 || length > MAX_DIGITS || (length > 1 && data.charCodeAt(at) === ZERO)) return -1;
  digits = n;
  return i;
}

/** Reads `null` or a string literal at `at` into `value`. */
function readNullableString(data: string, at: number): number {
  if (has(data, at, 'null')) {
    value = null;
    return at + 4;
  }
  return readString(data, at);
}

/** Reads a JSON string literal at `at` into `value`; the index after its closing quote, or -1. */
function readString(data: string, at: number): number {
  if (data.charCodeAt(at) !== QUOTE) return -1;
  let escaped = false;
  let i = at + 1;
  for (;;) {
    if (i >= data.length) return -1;
    const c = data.charCodeAt(i);
    if (c === QUOTE) break;
    if (c < 32) return -1;
    if (c === BACKSLASH) {
      escaped = true;
      i += 2;
    } else i++;
  }
  if (i - at - 1 >= MIN_SLICED) {
    // Long enough for V8 to slice (or, joined, to make a cons string): a copy by JSON.parse of its literal.
    try {
      value = JSON.parse(data.slice(at, i + 1));
    } catch {
      return -1;
    }
  } else if (escaped) {
    const text = unescapeShort(data, at + 1, i);
    if (text === undefined) return -1;
    value = text;
  } else value = data.slice(at + 1, i);
  return i + 1;
}

/**
 * The text of a short string literal's body `data[from, to)` with its escapes (`\"`, `\\`, `\/`, `\b`, `\f`,
 * `\n`, `\r`, `\t`, `\uXXXX`) replaced; `undefined` for an invalid escape. Short: every piece is copied.
 */
function unescapeShort(data: string, from: number, to: number): string | undefined {
  let out = '';
  let start = from;
  for (let i = from; i < to; i++) {
    if (data.charCodeAt(i) !== BACKSLASH) continue;
    out += data.slice(start, i);
    const c = data.charCodeAt(i + 1);
    let ch: string;
    if (c === QUOTE || c === BACKSLASH || c === 47) ch = String.fromCharCode(c);
    else if (c === 110) ch = '\n';
    else if (c === 116) ch = '\t';
    else if (c === 114) ch = '\r';
    else if (c === 98) ch = '\b';
    else if (c === 102) ch = '\f';
    else if (c === 117) {
      const hex = data.slice(i + 2, i + 6);
      if (i + 6 > to || !/^[0-9a-fA-F]{4}$/.test(hex)) return undefined;
      ch = String.fromCharCode(parseInt(hex, 16));
      i += 4;
    } else return undefined;
    out += ch;
    i++;
    start = i + 1;
  }
  return out + data.slice(start, to);
}
