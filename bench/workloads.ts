/**
 * Deterministic (seeded) OpenAI-compatible SSE workloads, built in memory as arrays of network chunks.
 *
 * (a) `text`       — N text deltas mixing ASCII and CJK, one event per chunk.
 * (b) `text-split` — the same bytes as (a), split at random points (1–4,096 bytes per chunk).
 * (c) `tool`       — one tool call whose JSON arguments arrive in 1–8 character fragments, one event per chunk.
 * (d) `tool-<KB>`  — (c) at another argument size (the scaling series).
 */
import { createPrng } from './lib/prng.js';

export interface Workload {
  name: string;
  /** The network chunks, in order. */
  chunks: Uint8Array[];
  /** Total bytes of the chunks. */
  bytes: number;
  /** SSE events (including the final `[DONE]`). */
  events: number;
  /** What every contestant must produce. */
  expected: { text: string; toolName?: string; toolArgs?: string };
}

export interface WorkloadSpec {
  kind: 'text' | 'text-split' | 'tool';
  /** text: number of deltas; tool: argument size in bytes (approximately, from below). */
  size: number;
  /** Label used in tables. */
  name: string;
}

const ID = 'chatcmpl-68c7a6b1d2e3';
const CREATED = 1767867407;
const MODEL = 'kimi-k2';

/** The fixed parts of an answer's chunks, around each chunk's `delta`. */
export interface ChunkShape {
  /** The chunk's text up to its `delta`'s value. */
  head: string;
  /** The chunk's text after its `delta`'s value. */
  tail: string;
  /** The whole finishing chunk, given its `finish_reason`. */
  finish: (reason: string) => string;
}

/** The compact shape of the parse bench's workloads (no optional fields). */
export const COMPACT_SHAPE: ChunkShape = {
  head: `{"id":"${ID}","object":"chat.completion.chunk","created":${CREATED},"model":"${MODEL}","choices":[{"index":0,"delta":`,
  tail: ',"finish_reason":null}]}',
  finish: (reason) =>
    `{"id":"${ID}","object":"chat.completion.chunk","created":${CREATED},"model":"${MODEL}","choices":[{"index":0,"delta":{"content":""},"finish_reason":"${reason}"}],"usage":{"prompt_tokens":11,"completion_tokens":2000,"total_tokens":2011,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":11}}`,
};

const DS_ID = 'f6117a0b-129d-46fa-b239-78f01c2c5df9';
const DS_FP = 'fp_eaab8d114b_prod0820_fp8_kvcache';
/**
 * DeepSeek's wire as recorded (../shared/real-streams/deepseek-chat-text.sse): a UUID id, `system_fingerprint`,
 * `logprobs:null` and `finish_reason:null` on every chunk, usage with `prompt_tokens_details` on the finishing one.
 * 2,000 deltas of {@link textEvents} in it are 562 KB (the "2,000 DeepSeek-shaped deltas (563 KB)").
 */
export const DEEPSEEK_SHAPE: ChunkShape = {
  head: `{"id":"${DS_ID}","object":"chat.completion.chunk","created":1764657993,"model":"deepseek-chat","system_fingerprint":"${DS_FP}","choices":[{"index":0,"delta":`,
  tail: ',"logprobs":null,"finish_reason":null}]}',
  finish: (reason) =>
    `{"id":"${DS_ID}","object":"chat.completion.chunk","created":1764657993,"model":"deepseek-chat","system_fingerprint":"${DS_FP}","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"${reason}"}],"usage":{"prompt_tokens":13,"completion_tokens":2000,"total_tokens":2013,"prompt_tokens_details":{"cached_tokens":0},"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":13}}`,
};

const ASCII_WORDS = [
  'the',
  'stream',
  'token',
  'of',
  'a',
  'model',
  'answers',
  'quickly',
  'and',
  'parses',
  'JSON',
  'with',
  'care',
  '42',
  'ok,',
  'yes.',
  '"quoted"',
  'new\nline',
  'tab\there',
];
const CJK = '你好我是一个大型语言模型今天天气很好请问有什么可以帮助您的吗数据流解析器测试中文字符东京北京上海深圳';

/** One text delta: ASCII words and/or CJK characters, 1–4 pieces. */
function textDelta(rnd: ReturnType<typeof createPrng>): string {
  let out = '';
  const pieces = rnd.int(1, 4);
  for (let p = 0; p < pieces; p++) {
    if (rnd.next() < 0.5) {
      out += (out === '' ? '' : ' ') + ASCII_WORDS[rnd.int(0, ASCII_WORDS.length - 1)];
    } else {
      const n = rnd.int(1, 3);
      for (let k = 0; k < n; k++) out += CJK[rnd.int(0, CJK.length - 1)];
    }
  }
  return out;
}

/** The SSE event texts of a text answer with `deltas` content deltas (a generator: nothing is kept but the text). */
export function* textEvents(
  deltas: number,
  seed = 1,
  answer: { text: string } = { text: '' },
  { head, tail, finish }: ChunkShape = COMPACT_SHAPE,
): Generator<string> {
  const rnd = createPrng(seed);
  const parts: string[] = [];
  yield `data: ${head}{"role":"assistant","content":""}${tail}\n\n`;
  for (let i = 0; i < deltas; i++) {
    const piece = textDelta(rnd);
    parts.push(piece);
    yield `data: ${head}{"content":${JSON.stringify(piece)}}${tail}\n\n`;
  }
  answer.text = parts.join('');
  yield `data: ${finish('stop')}\n\n`;
  yield 'data: [DONE]\n\n';
}

/** Seeded JSON arguments of at least `bytes` UTF-8 bytes (BMP only, so fragments never split a surrogate pair). */
export function toolArguments(bytes: number, seed = 2): string {
  const rnd = createPrng(seed);
  const items: unknown[] = [];
  let size = 40;
  for (let i = 0; size < bytes; i++) {
    let name = '';
    for (let k = rnd.int(2, 8); k > 0; k--) name += CJK[rnd.int(0, CJK.length - 1)];
    const item = {
      id: i,
      name,
      title: `${ASCII_WORDS[rnd.int(0, ASCII_WORDS.length - 1)]} ${ASCII_WORDS[rnd.int(0, ASCII_WORDS.length - 1)]}`,
      score: Math.round(rnd.next() * 10000) / 100,
      tags: ['a', 'b', 'c'].slice(0, rnd.int(0, 3)),
      nested: { ok: rnd.next() < 0.5, n: null },
    };
    items.push(item);
    size += Buffer.byteLength(JSON.stringify(item)) + 1;
  }
  return JSON.stringify({ query: '北京 weather "today"', limit: 10, items });
}

/** The SSE event texts of one tool call whose arguments `args` arrive in 1–8 character fragments. */
export function* toolEvents(args: string, name: string, seed = 3): Generator<string> {
  const rnd = createPrng(seed);
  yield `data: ${COMPACT_SHAPE.head}{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_00_JQSxq1bench","type":"function","function":{"name":"${name}","arguments":""}}]}${COMPACT_SHAPE.tail}\n\n`;
  for (let at = 0; at < args.length;) {
    const piece = args.slice(at, at + rnd.int(1, 8));
    at += piece.length;
    yield `data: ${COMPACT_SHAPE.head}{"tool_calls":[{"index":0,"function":{"arguments":${JSON.stringify(piece)}}}]}${COMPACT_SHAPE.tail}\n\n`;
  }
  yield `data: ${COMPACT_SHAPE.finish('tool_calls')}\n\n`;
  yield 'data: [DONE]\n\n';
}

/**
 * Encodes the events of `make()` into ONE buffer (two passes over the deterministic generator, so the peak memory of
 * building is the buffer itself) and returns it with one view per event.
 */
export function encodeEvents(make: () => Iterable<string>): { bytes: Buffer; perEvent: Uint8Array[] } {
  let total = 0;
  for (const event of make()) total += Buffer.byteLength(event);
  const bytes = Buffer.allocUnsafe(total);
  const perEvent: Uint8Array[] = [];
  let at = 0;
  for (const event of make()) {
    const n = bytes.write(event, at);
    perEvent.push(bytes.subarray(at, at + n));
    at += n;
  }
  return { bytes, perEvent };
}

/** Splits `bytes` at seeded random points into views of 1–4,096 bytes (no copies). */
export function splitRandomly(bytes: Uint8Array, seed = 4, max = 4096): Uint8Array[] {
  const rnd = createPrng(seed);
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length;) {
    const n = Math.min(rnd.int(1, max), bytes.length - at);
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  return out;
}

/** Builds the workload of `spec` in memory. */
export function buildWorkload(spec: WorkloadSpec): Workload {
  if (spec.kind === 'tool') {
    const args = toolArguments(spec.size);
    const name = 'search_documents';
    const { bytes, perEvent } = encodeEvents(() => toolEvents(args, name));
    return {
      name: spec.name,
      chunks: perEvent,
      bytes: bytes.length,
      events: perEvent.length,
      expected: { text: '', toolName: name, toolArgs: args },
    };
  }
  const answer = { text: '' };
  const { bytes, perEvent } = encodeEvents(() => textEvents(spec.size, 1, answer));
  const chunks = spec.kind === 'text-split' ? splitRandomly(bytes) : perEvent;
  return { name: spec.name, chunks, bytes: bytes.length, events: perEvent.length, expected: { text: answer.text } };
}

/** The workloads of a run: (a), (b), (c), and the (d) series (its 200 KB point is (c)). */
export function workloadSpecs(quick: boolean): WorkloadSpec[] {
  const deltas = quick ? 5_000 : 100_000;
  const kb = quick ? [5, 20, 80] : [50, 200, 800];
  return [
    { kind: 'text', size: deltas, name: 'a' },
    { kind: 'text-split', size: deltas, name: 'b' },
    { kind: 'tool', size: kb[1]! * 1024, name: 'c' },
    { kind: 'tool', size: kb[0]! * 1024, name: `d-${kb[0]}KB` },
    { kind: 'tool', size: kb[2]! * 1024, name: `d-${kb[2]}KB` },
  ];
}
