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

// Delta fields the scanner reads (a bit each, to refuse a repeated key): the rest of a delta takes the ordinary path.
const ROLE = 1;
const CONTENT = 2;
const REASONING_CONTENT = 4;
const REASONING = 8;
const TOOL_CALLS = 16;

// Scratch results of the readers below (they return the index after what they read, or -1).
let value: unknown;
let digits = 0;

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
 * 1. The text before `"choices":[` (the head) is parsed once as `head + '[]}'` and checked with `matchesChunkShape`;
 *    it is remembered only when every one of its values is a string, number, boolean or `null` (nothing to share
 *    between chunks) and it has no `error`. A later chunk starting with the same text reuses it.
 * 2. The choices must be one choice `{"index":N,"delta":{…},["logprobs":null,]"finish_reason":null}`, its delta the
 *    fields `role`, `content`, `reasoning_content`, `reasoning` (each a string or `null`) and `tool_calls` (one
 *    argument fragment `[{"index":N,"function":{"arguments":"…"}}]`), each at most once, with no whitespace; `choices`
 *    the last member. Such a chunk matches the `ChatCompletionChunk` schema by construction.
 * 3. Strings long enough that a slice would keep the event text alive are read by `JSON.parse` of their literal;
 *    shorter ones are sliced, their escapes replaced here. A control character or a bad escape refuses the chunk
 *    (`JSON.parse` reports it).
 * 4. Anything else is `undefined`. After {@link GIVE_UP_AFTER} chunks without one match, the scanner stops trying.
 *
 * @returns A scanner for one stream (it remembers the stream's head).
 */
export function createChunkScanner(): ChunkScanner {
  let head: string | undefined; // the validated text before the choices' `[`
  let top: Json | undefined; // its fields, parsed (with `choices: []`)
  let shape = GENERIC; // how a chunk is built from `top`
  let rejected: string | undefined; // the last head refused: not parsed again
  let hits = 0;
  let misses = 0;
  let stopped = false;

  const miss = (): undefined => {
    if (++misses >= GIVE_UP_AFTER && hits === 0) stopped = true;
    return undefined;
  };

  /** Parses and checks a new head; true if it can be reused. */
  const learn = (text: string): boolean => {
    if (text === rejected) return false;
    let probe: unknown;
    try {
      probe = JSON.parse(`${text}[]}`);
    } catch {
      probe = undefined;
    }
    if (isReusableHead(probe)) {
      head = text;
      top = probe;
      shape = shapeOf(probe);
      return true;
    }
    rejected = text;
    return false;
  };

  return {
    scan(data) {
      if (stopped) return undefined;
      let at: number;
      let fresh: string | undefined;
      if (head !== undefined && data.startsWith(head)) at = head.length;
      else {
        const found = data.indexOf(CHOICES);
        if (found === -1) return miss();
        at = found + CHOICES.length - 1;
        fresh = data.slice(0, at);
      }
      const choices = readChoices(data, at);
      if (choices === undefined) return miss();
      if (fresh !== undefined && !learn(fresh)) return miss();
      hits++;
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
      const chunk: Json = { ...t };
      chunk['choices'] = choices;
      return chunk as ChatCompletionChunk;
    },
  };
}

const GENERIC = 0;
const PLAIN = 1;
const FINGERPRINTED = 2;
const PLAIN_KEYS = 'id,object,created,model,choices';
const FINGERPRINTED_KEYS = 'id,object,created,model,system_fingerprint,choices';

/** Which literal builds a chunk with the keys of `top`, in their order. */
function shapeOf(top: Json): number {
  const keys = Object.keys(top).join(',');
  return keys === PLAIN_KEYS ? PLAIN : keys === FINGERPRINTED_KEYS ? FINGERPRINTED : GENERIC;
}

/** A parsed head: a chunk whose every field is a primitive, `choices` empty, no `error`. */
function isReusableHead(probe: unknown): probe is Json {
  if (!matchesChunkShape(probe)) return false;
  const fields = probe as Json;
  for (const key of Object.keys(fields)) {
    const field = fields[key];
    if (key === 'choices') continue;
    if (key === 'error' && field !== null) return false;
    if (typeof field === 'object' && field !== null) return false;
  }
  const choices = fields['choices'];
  return Array.isArray(choices) && choices.length === 0;
}

/** The choices array at `at` (its `[`) followed by the chunk's closing `}` and nothing else; else `undefined`. */
function readChoices(data: string, at: number): unknown[] | undefined {
  if (!data.startsWith('[{"index":', at)) return undefined;
  at = readIndex(data, at + 10);
  if (at === -1) return undefined;
  const index = digits;
  if (!data.startsWith(',"delta":{', at)) return undefined;
  const delta: Json = {};
  at = readDelta(data, at + 10, delta);
  if (at === -1) return undefined;
  let logprobs = false;
  if (data.startsWith(',"logprobs":null', at)) {
    logprobs = true;
    at += 16;
  }
  if (!data.startsWith(',"finish_reason":null}]}', at) || at + 24 !== data.length) return undefined;
  const choice = logprobs
    ? { index, delta, logprobs: null, finish_reason: null }
    : { index, delta, finish_reason: null };
  return [choice];
}

/** Reads the delta's members from `at` (after its `{`) into `delta`; the index after its `}`, or -1. */
function readDelta(data: string, at: number, delta: Json): number {
  let seen = 0;
  if (data.charCodeAt(at) === CLOSE_BRACE) return at + 1;
  for (;;) {
    let key: string;
    let bit: number;
    if (data.startsWith('"content":', at)) {
      key = 'content';
      bit = CONTENT;
      at += 10;
    } else if (data.startsWith('"tool_calls":', at)) {
      if ((seen & TOOL_CALLS) !== 0) return -1;
      seen |= TOOL_CALLS;
      at = readToolCallFragment(data, at + 13);
      if (at === -1) return -1;
      delta['tool_calls'] = value;
      key = '';
      bit = 0;
    } else if (data.startsWith('"reasoning_content":', at)) {
      key = 'reasoning_content';
      bit = REASONING_CONTENT;
      at += 20;
    } else if (data.startsWith('"role":', at)) {
      key = 'role';
      bit = ROLE;
      at += 7;
    } else if (data.startsWith('"reasoning":', at)) {
      key = 'reasoning';
      bit = REASONING;
      at += 12;
    } else return -1;
    if (bit !== 0) {
      if ((seen & bit) !== 0) return -1;
      seen |= bit;
      at = readNullableString(data, at);
      if (at === -1) return -1;
      delta[key] = value;
    }
    const next = data.charCodeAt(at);
    if (next === CLOSE_BRACE) return at + 1;
    if (next !== 44) return -1; // ,
    at++;
  }
}

/** Reads `[{"index":N,"function":{"arguments":"…"}}]` at `at` into `value`; the index after it, or -1. */
function readToolCallFragment(data: string, at: number): number {
  if (!data.startsWith('[{"index":', at)) return -1;
  at = readIndex(data, at + 10);
  if (at === -1) return -1;
  const index = digits;
  if (!data.startsWith(',"function":{"arguments":', at)) return -1;
  at = readString(data, at + 25);
  if (at === -1 || !data.startsWith('}}]', at)) return -1;
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
  if (data.startsWith('null', at)) {
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
