/**
 * Provider streams whose string literals are escaped the many ways a JSON encoder may write them, for the specs of
 * the spliced literals (`providerLiteral`): raw characters where JSON allows them (non-ASCII, U+2028, DEL), or
 * `\uXXXX` in lowercase or uppercase hex for any character (`\u00e9`, a surrogate pair as `\uD83D\uDE00`, a control
 * character as `\u000a` where `JSON.stringify` writes `\n`), `\/` for `/`, the short escapes, and lone surrogates.
 * Only some of these literals are what `JSON.stringify` writes; the wire must give `JSON.stringify`'s bytes for all.
 */
import fc from 'fast-check';

/** How one character is written: 0 as it is (where JSON allows), 1 `\u` lowercase, 2 `\u` uppercase, 3 the short escape or `\/`. */
const FORMS = 4;
const SHORT: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '/': '\\/' };

/** The JSON literal of `text`, each character (UTF-16 unit) written in the form `forms[i % forms.length]` picks. */
export function escapeLiteral(text: string, forms: readonly number[]): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const code = text.charCodeAt(i);
    const form = forms.length === 0 ? 0 : forms[i % forms.length]! % FORMS;
    const hex = code.toString(16).padStart(4, '0');
    const mustEscape = code < 0x20 || ch === '"' || ch === '\\';
    if (form === 1) out += `\\u${hex}`;
    else if (form === 2) out += `\\u${hex.toUpperCase()}`;
    else if ((form === 3 || mustEscape) && SHORT[ch] !== undefined) out += SHORT[ch];
    else if (mustEscape) out += `\\u${hex}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Texts rich in what escaping varies on: quotes, backslashes, slashes, control characters, non-ASCII, emoji, surrogates. */
export const literalText = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'é', '你', '"', '\\', '/', '\n', '\t', '\u0001', '\u001f', '\u007f', '\u2028', '😀', '\ud83d', '\ude00', ' '), maxLength: 24 }),
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.string({ maxLength: 24 }),
);

/** A text and how its literal is escaped: `[text, forms]` (forms empty: every character as it is where JSON allows). */
export const escapedText = fc.tuple(literalText, fc.oneof(fc.constant<number[]>([]), fc.array(fc.nat({ max: FORMS - 1 }), { minLength: 1, maxLength: 6 })));

const HEAD = '{"id":"f6117a0b","object":"chat.completion.chunk","created":1764657993,"model":"deepseek-chat","system_fingerprint":"fp_1","choices":[{"index":0,"delta":';
const TAIL = ',"logprobs":null,"finish_reason":null}],"usage":null}';

/** The events' data of a DeepSeek-shaped stream: a role chunk, one chunk per text (content or reasoning), a finish. */
export function providerStream(texts: ReadonlyArray<readonly [string, readonly number[], boolean]>): string[] {
  const data = [`${HEAD}{"role":"assistant","content":""}${TAIL}`];
  for (const [text, forms, reasoning] of texts) {
    data.push(`${HEAD}{"${reasoning ? 'reasoning_content' : 'content'}":${escapeLiteral(text, forms)}}${TAIL}`);
  }
  data.push(`${HEAD}{"content":""},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`);
  return data;
}

/** The bytes of those events (`data: …\n\n` each, then `data: [DONE]`). */
export function providerStreamBytes(data: readonly string[]): Uint8Array {
  return new TextEncoder().encode(`${data.map((line) => `data: ${line}\n\n`).join('')}data: [DONE]\n\n`);
}

/** A stream's texts with their escaping: `[text, forms, reasoning]` each. */
export const providerTexts = fc.array(fc.tuple(literalText, escapedText.map(([, forms]) => forms), fc.boolean()), { minLength: 1, maxLength: 12 });
