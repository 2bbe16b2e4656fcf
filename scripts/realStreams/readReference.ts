/**
 * What a stream carries, read naively and independently of chatflux's operators, to check that nothing the provider
 * sent is lost: every `data:` line is parsed as JSON and its text, reasoning and refusal pieces are collected for
 * choice 0, in whatever field the provider used. Deliberately simple (one event per `data:` line, the framing every
 * file of the corpus uses); used only as a cross-check.
 */
export interface StreamReference {
  /** The first non-empty `id`, `model` and `created` (a positive number). */
  id: string | undefined;
  model: string | undefined;
  created: number | undefined;
  /** Text of choice 0 (`delta.content` strings and `text` parts). */
  content: string;
  /** Reasoning of choice 0 (`reasoning_content`, else `reasoning`, and `thinking` parts). */
  reasoning: string;
  /** Refusal pieces of choice 0. */
  refusal: string;
  /** Whether any usage was sent (top level, in a choice, or in `x_groq`). */
  hasUsage: boolean;
  /** Whether the stream carries an in-band error (`event: error` or a `{"error":…}` payload). */
  inBandError: boolean;
  /** Whether the stream ends with `data: [DONE]`. */
  done: boolean;
}

type Json = Record<string, unknown>;

const partsText = (parts: unknown, kind: 'text' | 'thinking'): string => {
  if (!Array.isArray(parts)) return '';
  let out = '';
  for (const part of parts as Json[]) {
    if (part?.type !== kind) continue;
    if (kind === 'text' && typeof part.text === 'string') out += part.text;
    if (kind === 'thinking')
      out += typeof part.thinking === 'string' ? part.thinking : partsText(part.thinking, 'text');
  }
  return out;
};

/** Reads the reference values of a raw SSE body. */
export function readReference(text: string): StreamReference {
  const ref: StreamReference = {
    id: undefined,
    model: undefined,
    created: undefined,
    content: '',
    reasoning: '',
    refusal: '',
    hasUsage: false,
    inBandError: /^event: ?error\r?$/m.test(text),
    done: /^data: ?\[DONE\]\r?$/m.test(text),
  };
  for (const line of text.split(/\r?\n/)) {
    const match = /^data: ?(.*)$/.exec(line);
    if (match === null || match[1] === '[DONE]') continue;
    let chunk: Json;
    try {
      chunk = JSON.parse(match[1] ?? '') as Json;
    } catch {
      continue;
    }
    if (chunk === null || typeof chunk !== 'object') continue;
    if (chunk.error != null) ref.inBandError = true;
    if (typeof chunk.id === 'string' && chunk.id !== '') ref.id ??= chunk.id;
    if (typeof chunk.model === 'string' && chunk.model !== '') ref.model ??= chunk.model;
    if (typeof chunk.created === 'number' && chunk.created > 0) ref.created ??= chunk.created;
    if (chunk.usage != null || (chunk.x_groq as Json | undefined)?.usage != null) ref.hasUsage = true;
    const choices = Array.isArray(chunk.choices) ? (chunk.choices as Json[]) : [];
    choices.forEach((choice, position) => {
      if (choice.usage != null) ref.hasUsage = true;
      if ((choice.index ?? position) !== 0) return;
      const delta = (choice.delta ?? {}) as Json;
      if (typeof delta.content === 'string') ref.content += delta.content;
      else {
        ref.content += partsText(delta.content, 'text');
        ref.reasoning += partsText(delta.content, 'thinking');
      }
      if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '')
        ref.reasoning += delta.reasoning_content;
      else if (typeof delta.reasoning === 'string') ref.reasoning += delta.reasoning;
      if (typeof delta.refusal === 'string') ref.refusal += delta.refusal;
    });
  }
  return ref;
}
