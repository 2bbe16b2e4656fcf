/**
 * A fast structural twin of the zod `ChatCompletionChunk` schema (`src/schemas/upstream.ts`) for JSON values: true
 * exactly when the schema accepts `value` (then the schema's output equals `value`, except that an absent `choices`
 * becomes `[]`). `decodeChunk` tries it first and lets zod produce the error only when it says no; a property test
 * keeps the two in agreement. Keep it in step with the schema.
 *
 * An object of the schema with an own `__proto__` key (which `JSON.parse` creates from `{"__proto__":…}`) is left to
 * zod, which drops that key: the fast path never hands such a key on.
 *
 * @param value - A value from `JSON.parse`.
 * @returns Whether the value has the shape of a chunk.
 */
export function matchesChunkShape(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (!nullishString(value.id) || !nullishString(value.object) || !nullishString(value.model)) return false;
  if (!nullishString(value.system_fingerprint) || !nullishNumber(value.created) || !nullishUsage(value.usage))
    return false;
  const groq = value.x_groq;
  if (groq !== undefined && groq !== null && !(isObject(groq) && nullishUsage(groq.usage))) return false;
  const choices = value.choices;
  if (choices === undefined) return true;
  if (!Array.isArray(choices)) return false;
  for (let i = 0; i < choices.length; i++) if (!isChoice(choices[i])) return false;
  return true;
}

type Obj = Record<string, unknown>;

const hasOwn = Object.prototype.hasOwnProperty;
const isObject = (v: unknown): v is Obj =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !hasOwn.call(v, '__proto__');
const nullishString = (v: unknown): boolean => v === undefined || v === null || typeof v === 'string';
const nullishNumber = (v: unknown): boolean =>
  v === undefined || v === null || (typeof v === 'number' && Number.isFinite(v));
const nullishIndex = (v: unknown): boolean =>
  v === undefined || v === null || (Number.isSafeInteger(v) && (v as number) >= 0);

function isChoice(v: unknown): boolean {
  if (!isObject(v)) return false;
  if (!nullishIndex(v.index) || !nullishString(v.finish_reason) || !nullishUsage(v.usage)) return false;
  const delta = v.delta;
  if (delta === undefined || delta === null) return true;
  if (!isObject(delta)) return false;
  if (!nullishString(delta.role) || !nullishContent(delta.content) || !nullishString(delta.reasoning_content))
    return false;
  if (!nullishString(delta.reasoning) || !nullishString(delta.refusal)) return false;
  const calls = delta.tool_calls;
  if (calls === undefined || calls === null) return true;
  if (!Array.isArray(calls)) return false;
  for (let i = 0; i < calls.length; i++) if (!isToolCallDelta(calls[i])) return false;
  return true;
}

/** A string, or an array of parts each with a string `type` (Mistral's content parts). */
function nullishContent(v: unknown): boolean {
  if (v === undefined || v === null || typeof v === 'string') return true;
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) {
    const part: unknown = v[i];
    if (!isObject(part) || typeof part.type !== 'string') return false;
  }
  return true;
}

function isToolCallDelta(v: unknown): boolean {
  if (!isObject(v)) return false;
  if (!nullishIndex(v.index) || !nullishString(v.id) || !nullishString(v.type)) return false;
  const fn = v.function;
  if (fn === undefined || fn === null) return true;
  return isObject(fn) && nullishString(fn.name) && nullishString(fn.arguments);
}

function nullishUsage(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (!isObject(v)) return false;
  if (!nullishNumber(v.prompt_tokens) || !nullishNumber(v.completion_tokens) || !nullishNumber(v.total_tokens))
    return false;
  if (
    !nullishNumber(v.prompt_cache_hit_tokens) ||
    !nullishNumber(v.prompt_cache_miss_tokens) ||
    !nullishNumber(v.cached_tokens)
  )
    return false;
  return (
    nullishDetails(v.prompt_tokens_details, 'cached_tokens') &&
    nullishDetails(v.completion_tokens_details, 'reasoning_tokens')
  );
}

const nullishDetails = (v: unknown, key: string): boolean =>
  v === undefined || v === null || (isObject(v) && nullishNumber(v[key]));
