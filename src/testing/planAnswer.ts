import { createSeededRandom, type SeededRandom } from './createSeededRandom.js';
import { hashString } from './hashString.js';
import type { ChatCompletionRequest } from '../core/schemas/index.js';
import type { EmulatorDialect } from './EmulatorDialect.js';
import { isThinkingMode } from './isThinkingMode.js';
import { messageText } from './messageText.js';

/** A tool call the emulated model makes, with its argument string cut into the pieces its dialect streams. */
export interface PlannedToolCall {
  /** The call's id, in the dialect's format (`call_00_…`, `name:N`). */
  id: string;
  /** The function called. */
  name: string;
  /** The complete argument string (valid JSON): the pieces joined. */
  arguments: string;
  /** `arguments` cut as the dialect streams it: a few characters, pretty-printed lines, or whole. */
  pieces: string[];
}

/** One choice of a planned answer. `reasoning()` and `content()` are lazy and can be iterated again. */
export interface PlannedChoice {
  /** The choice's index. */
  index: number;
  /** The reasoning pieces, lazily (empty unless the model reasons). */
  reasoning: () => Iterable<string>;
  /** The content pieces, lazily. */
  content: () => Iterable<string>;
  /** The tool calls the choice makes. */
  toolCalls: PlannedToolCall[];
  /** The choice's finish reason. */
  finishReason: string;
}

/** The deterministic answer to one request: a pure function of the request, the dialect and the seed. */
export interface AnswerPlan {
  /** The completion's id. */
  id: string;
  /** Unix time (seconds) of the completion. */
  created: number;
  /** The model name, without a `#scenario` suffix. */
  model: string;
  /** The dialect's `system_fingerprint`. */
  systemFingerprint: string;
  /** The prompt's token count, for usage. */
  promptTokens: number;
  /** Whether the model streams `reasoning_content` first (`deepseek-reasoner`, `kimi-k2-thinking`, …). */
  reasoner: boolean;
  /** One plan per choice (`n`). */
  choices: PlannedChoice[];
}

/** Options of {@link planAnswer}. */
export interface PlanAnswerConfig {
  /** The provider imitated. */
  dialect: EmulatorDialect;
  /** Seed of the deterministic answer. */
  seed: number;
  /** Content pieces per choice (default: 16–31, seeded). */
  tokens?: number;
  /** Overrides the finish reason of every choice. */
  finish?: string;
  /** The model calls tools in this many steps (assistant turns with tool calls since the last user message), then answers. */
  toolSteps?: number;
  /** The tool calls of the first this-many steps have arguments of the wrong types. */
  invalidToolArgs?: number;
}

const WORDS = [
  '数据',
  '流',
  '是',
  '一个',
  '好',
  '问题',
  '，',
  '。',
  ' RxJS',
  ' stream',
  ' token',
  ' 🚀',
  '🙂',
  '✨',
  ' Observable',
  '背压',
  '取消',
  '订阅',
  ' and',
  ' the',
  '你好',
  '世界',
  '👍',
  ' emits',
  ' values',
  '——',
  '！',
  '🌏',
];
/** The words that can stand just before a complete answer's last piece (not punctuation: no `，。`). */
const WORDS_BEFORE_END = WORDS.filter((word) => !['，', '。', '！', '——'].includes(word));
/** What a complete answer's last piece is: the end of a sentence. */
const SENTENCE_ENDS = ['。', '！'];
/** How many code points of the prompt the answer quotes; a longer prompt is quoted up to there, then `…`. */
const QUOTED = 24;
const THOUGHTS = ['嗯', '，', '让我想想', '。', ' First', ' check', ' the', ' question', '🤔', '……', ' then', '回答'];

/** Cuts a string into pieces of 1..max code points (never inside a surrogate pair). */
const cut = (text: string, rng: SeededRandom, max: number): string[] => {
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length;) {
    const size = 1 + rng.int(max);
    out.push(points.slice(i, i + size).join(''));
    i += size;
  }
  return out;
};

/** A value of the wrong type for a property (what a model that misread the parameters sends). */
const wrongValue = (schema: Record<string, unknown>): unknown =>
  schema.type === 'number' || schema.type === 'integer' ? 'many' : schema.type === 'string' || schema.type === undefined ? 42 : 'wrong';

const argumentValue = (schema: Record<string, unknown>, topic: string, rng: SeededRandom): unknown => {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (schema.type) {
    case 'number':
    case 'integer':
      return 1 + rng.int(100);
    case 'boolean':
      return true;
    case 'array':
      return [topic];
    case 'object':
      return {};
    default:
      return topic;
  }
};

/**
 * Plans the emulator's answer to a request: id, text, reasoning, tool calls and finish reason.
 *
 * 1. The text answers the last user (or tool) message — it quotes it in `「…」` and goes on with words mixing CJK,
 *    English and emoji — so tests can assert it. `stream` and `stream_options` do not change the answer: the
 *    streamed and the non-streamed answer are the same.
 * 2. Reasoning models (name containing `reasoner` or `thinking`, or `thinking: {"type": "enabled"}` in the request)
 *    think first.
 * 3. With `tools` and a `tool_choice` other than `none`, the model calls every tool whose name the last user
 *    message mentions (else the first tool; a forced tool by name), with arguments built from its JSON schema and
 *    the message. With `auto`, it answers in text once the last message is a tool result — or, with `toolSteps`, once
 *    that many assistant turns with tool calls follow the last user message; the first `invalidToolArgs` steps' calls
 *    have arguments of the wrong types.
 * 4. `max_tokens` (or `max_completion_tokens`) below the length cuts the answer with `finish_reason: "length"`: the
 *    answer is the first pieces of the one without the limit.
 * 5. `n` > 1 gives interleaved choices for `openai` and `moonshot-v1-*` models; DeepSeek and newer Kimi models
 *    answer with one choice.
 *
 * ## Example
 * ```ts
 * const plan = planAnswer(request, { dialect: 'deepseek', seed: 1 });
 * const text = [...plan.choices[0]!.content()].join('');
 * ```
 *
 * @param request - A validated request.
 * @param config - Dialect, seed and overrides.
 * @returns The plan; its text generators are lazy.
 */
export function planAnswer(request: ChatCompletionRequest, config: PlanAnswerConfig): AnswerPlan {
  const { dialect, seed } = config;
  const model = request.model.split('#')[0] ?? request.model;
  // A token limit changes where the answer stops, not what it says (as a model's): it is not part of the seed.
  const { stream: _stream, stream_options: _options, max_tokens: _max, max_completion_tokens: _maxCompletion, ...rest } = request;
  const hash = hashString(JSON.stringify({ ...rest, model }), hashString(`${dialect}:${seed}`));
  const rng = createSeededRandom(hash);
  const reasoner = isThinkingMode(request);
  const last = request.messages[request.messages.length - 1];
  const lastUser = [...request.messages].reverse().find((m) => m.role === 'user');
  const source = last?.role === 'tool' ? last : lastUser;
  const said = Array.from(messageText(source?.content).replace(/\s+/g, ' ').trim());
  const topic = said.slice(0, QUOTED).join('') || '…';
  // What the text quotes: the prompt, or its first QUOTED code points and `…` (a cut is shown, not left mid-word).
  const quote = said.length > QUOTED ? `${topic.trimEnd()}…` : topic;
  const promptChars = request.messages.reduce((sum, m) => sum + messageText(m.content).length, 0);

  const id =
    dialect === 'deepseek'
      ? `${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-${'89ab'[rng.int(4)]}${rng.hex(3)}-${rng.hex(12)}`
      : `chatcmpl-${rng.hex(dialect === 'moonshot' ? 24 : 29)}`;
  const systemFingerprint =
    dialect === 'deepseek'
      ? `fp_${rng.hex(10)}_prod0820`
      : dialect === 'moonshot'
        ? `fpv0_${rng.hex(8)}`
        : `fp_${rng.hex(10)}`;
  const created = 1767225600 + (hash % 31536000);

  const functions = (request.tools ?? []).flatMap((tool) => (tool.function ? [tool.function] : []));
  const choice = request.tool_choice;
  const forced =
    typeof choice === 'object' && choice !== null
      ? (choice as { function?: { name?: string } }).function?.name
      : undefined;
  // The steps of the conversation so far: its assistant turns with tool calls since the last user message.
  const since = request.messages.length - 1 - [...request.messages].reverse().findIndex((m) => m.role === 'user');
  const steps = request.messages.slice(since).filter((m) => m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0).length;
  const wantsTools =
    functions.length > 0 &&
    choice !== 'none' &&
    (config.toolSteps !== undefined
      ? steps < config.toolSteps
      : forced !== undefined || choice === 'required' || last?.role !== 'tool');
  const invalid = steps < (config.invalidToolArgs ?? 0);
  const mentioned = functions.filter((f) => messageText(lastUser?.content).includes(f.name));
  const called = !wantsTools
    ? []
    : forced !== undefined
      ? functions.filter((f) => f.name === forced).slice(0, 1)
      : mentioned.length > 0
        ? mentioned
        : functions.slice(0, 1);

  // n > 1: OpenAI and the old moonshot-v1 models; DeepSeek and newer Kimi models answer once.
  const single = dialect === 'deepseek' || (dialect === 'moonshot' && !model.startsWith('moonshot-v1'));
  const n = single ? 1 : (request.n ?? 1);
  // max_completion_tokens (OpenAI's newer name) counts like max_tokens; the smaller one wins.
  const limits = [request.max_tokens, request.max_completion_tokens].filter((v): v is number => typeof v === 'number');
  const limit = limits.length === 0 ? undefined : Math.min(...limits);
  const choices: PlannedChoice[] = [];
  for (let index = 0; index < n; index++) {
    const choiceSeed = hashString(`choice:${index}`, hash);
    const contentSeed = choiceSeed ^ 0xc2b2ae35;
    const opening = ['关于「', ...cut(quote, createSeededRandom(contentSeed), 3), '」', '，'];
    // A complete answer holds its whole opening, a word and the sentence end; `tokens` (a scenario's) is taken as is.
    const length = config.tokens ?? Math.max(16 + createSeededRandom(choiceSeed).int(16), opening.length + 2);
    const capped = limit !== undefined && limit < length;
    const total = capped ? limit : length;
    const toolCalls = called.map((f, k): PlannedToolCall => {
      const argRng = createSeededRandom(hashString(`tool:${k}`, choiceSeed));
      const properties = ((f.parameters as { properties?: Record<string, Record<string, unknown>> } | undefined)
        ?.properties ?? {}) as Record<string, Record<string, unknown>>;
      const args: Record<string, unknown> = {};
      for (const [key, schema] of Object.entries(properties)) args[key] = invalid ? wrongValue(schema) : argumentValue(schema, topic, argRng);
      const compact = invalid && Object.keys(properties).length === 0 ? '[]' : JSON.stringify(args);
      const v1 = model.startsWith('moonshot-v1');
      const pieces =
        dialect === 'deepseek'
          ? cut(compact, argRng, 4)
          : dialect === 'openai'
            ? cut(compact, argRng, 8)
            : v1
              ? (JSON.stringify(args, null, 2).match(/[^\n]*\n?/g) ?? [])
                  .filter((p) => p !== '')
                  .flatMap((line) => line.split(/(?<=": )/))
              : [compact];
      const callId =
        dialect === 'deepseek'
          ? `call_0${k}_${argRng.hex(24)}`
          : dialect === 'openai'
            ? `call_${argRng.hex(24)}`
            : v1
              ? `${f.name}:${k}`
              : `functions.${f.name}:${k}`;
      return { id: callId, name: f.name, arguments: pieces.join(''), pieces };
    });
    const thoughts = 8 + createSeededRandom(choiceSeed ^ 0x9e3779b9).int(8);
    choices.push({
      index,
      toolCalls,
      finishReason: config.finish ?? (toolCalls.length > 0 ? 'tool_calls' : capped ? 'length' : 'stop'),
      reasoning: function* () {
        if (!reasoner) return;
        const r = createSeededRandom(choiceSeed ^ 0x85ebca6b);
        yield* ['嗯，用户问的是「', ...cut(quote, r, 3), '」。'];
        for (let i = 0; i < thoughts; i++) yield r.pick(THOUGHTS);
      },
      content: function* () {
        if (toolCalls.length > 0) return;
        // The answer without a limit is `length` pieces: the opening, words, and a sentence's end as the last one
        // (after a word, not after punctuation). A limit shows its first `total` pieces, so it may stop anywhere.
        const r = createSeededRandom(contentSeed);
        cut(quote, r, 3); // the opening's pieces, drawn again: the words go on from the same state
        for (let at = 0; at < total; at++) {
          yield at === length - 1
            ? r.pick(SENTENCE_ENDS)
            : at < opening.length
              ? opening[at]!
              : r.pick(at === length - 2 ? WORDS_BEFORE_END : WORDS);
        }
      },
    });
  }
  return {
    id,
    created,
    model,
    systemFingerprint,
    promptTokens: 4 * request.messages.length + Math.ceil(promptChars / 2),
    reasoner,
    choices,
  };
}
