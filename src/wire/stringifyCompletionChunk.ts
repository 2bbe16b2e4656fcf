import { isPlainJsonObject } from './isPlainJsonObject.js';

/** The keys of a `chat.completion.chunk` the template writes, in the order `toChatCompletionChunks` makes them. */
const CHUNK_KEYS = ['id', 'object', 'created', 'model', 'choices'] as const;
const CHOICE_KEYS = ['index', 'delta', 'finish_reason'] as const;

/** A delta's fields the template writes (each a string), as JSON keys; anything else goes to `JSON.stringify`. */
const deltaKey = (key: string): string | undefined => {
  switch (key) {
    case 'role':
      return '"role":';
    case 'content':
      return '"content":';
    case 'reasoning_content':
      return '"reasoning_content":';
    case 'refusal':
      return '"refusal":';
    default:
      return undefined;
  }
};

/** The last chunk's head (`{"id":…,"object":…,"created":…,"model":…,"choices":[{"index":`), for the next of its stream. */
let head = { id: '', created: Number.NaN, model: '', text: '' };

/**
 * `JSON.stringify(value)`, with a template for the value `POST /v1/chat/completions` streams most: a
 * `chat.completion.chunk` of one choice whose delta is text (`content`, `reasoning_content`, `refusal`, `role`),
 * written around `JSON.stringify` of those strings instead of by the generic walk of the whole object (the head —
 * id, created, model — made once per stream), and the bytes are the same.
 *
 * ```text
 * {id:'c',object:'chat.completion.chunk',created:1,model:'m',choices:[{index:0,delta:{content:'Hi'},finish_reason:null}]}
 *   → {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}
 * anything else (tool calls, usage, logprobs, extension fields, other key orders)  →  JSON.stringify(value)
 * ```
 *
 * The template is taken only when the value is exactly that shape: ordinary objects (not an array, not a boxed
 * primitive: `isPlainJsonObject`), those own keys in that order and no other enumerable one (inherited ones included),
 * string `id` and `model`, an integer `created` and `index`, one choice, a `finish_reason` that is `null` or a string,
 * delta fields that are strings, no `toJSON` — otherwise `JSON.stringify` decides, so the result is always
 * `JSON.stringify(value)`'s.
 *
 * @param value - Any value.
 * @returns Its JSON text, or `undefined` when it has none (as `JSON.stringify`).
 */
export function stringifyCompletionChunk(value: unknown): string | undefined {
  const template = completionChunkJson(value);
  return template !== undefined ? template : (JSON.stringify(value) as string | undefined);
}

type Fields = Record<string, unknown>;

/** Whether `for…in` gives exactly `keys`, in that order, each an own key (so `JSON.stringify` writes the same ones). */
function hasExactly(value: Fields, keys: readonly string[]): boolean {
  let at = 0;
  for (const key in value) {
    if (key !== keys[at] || !Object.hasOwn(value, key)) return false;
    at++;
  }
  return at === keys.length;
}

function completionChunkJson(value: unknown): string | undefined {
  if (!isPlainJsonObject(value) || !hasExactly(value, CHUNK_KEYS)) return undefined;
  const { id, object, created, model, choices } = value;
  if (typeof id !== 'string' || object !== 'chat.completion.chunk' || !Number.isSafeInteger(created) || typeof model !== 'string') return undefined;
  if (!Array.isArray(choices) || choices.length !== 1 || (choices as { toJSON?: unknown }).toJSON !== undefined) return undefined;
  const choice: unknown = choices[0];
  if (!isPlainJsonObject(choice) || !hasExactly(choice, CHOICE_KEYS)) return undefined;
  const { index, delta, finish_reason: finish } = choice;
  if (!Number.isSafeInteger(index) || (finish !== null && typeof finish !== 'string') || !isPlainJsonObject(delta)) return undefined;
  let fields = '';
  for (const key in delta) {
    const name = deltaKey(key);
    const field = delta[key];
    if (name === undefined || typeof field !== 'string' || !Object.hasOwn(delta, key)) return undefined;
    fields += fields === '' ? `${name}${JSON.stringify(field)}` : `,${name}${JSON.stringify(field)}`;
  }
  if (head.id !== id || head.created !== created || head.model !== model) {
    head = { id, created: created as number, model, text: `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created as number},"model":${JSON.stringify(model)},"choices":[{"index":` };
  }
  return `${head.text}${index as number},"delta":{${fields}},"finish_reason":${finish === null ? 'null' : JSON.stringify(finish)}}]}`;
}
