/**
 * Which provider the upstream emulator imitates, byte for byte (docs/PROVIDERS.md):
 * - `deepseek`: explicit `null`s, `logprobs: null`, usage on the finishing chunk, `: keep-alive` comments while
 *   queued, uuid-like ids, errors `{error: {message, type, param, code}}`, no `Retry-After`.
 * - `moonshot`: absent fields omitted, `system_fingerprint` after `choices`, usage inside `choices[i]` (plus a
 *   `choices: []` usage chunk with `include_usage`), `chatcmpl-` ids, errors `{error: {message, type}}`, the wait
 *   written into the message, n > 1 interleaved.
 * - `openai`: the OpenAI shapes, usage only in a final `choices: []` chunk, `Retry-After` / `retry-after-ms` on request.
 */
export type EmulatorDialect = 'moonshot' | 'deepseek' | 'openai';
