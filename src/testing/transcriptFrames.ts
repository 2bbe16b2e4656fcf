import { ConfigError } from '../core/errors.js';
import type { EmulatorDialect } from './EmulatorDialect.js';
import { dialectFrames } from './dialectFrames.js';
import type { PlannedToolCall } from './planAnswer.js';
import type { ProviderQuirks } from './ProviderQuirks.js';

/** Options of the transcript helpers (`sseText`, `sseMarbles`, `chunkMarbles`, `coldSse`). */
export interface TranscriptConfig {
  /** The provider whose chunk shapes are written (default `'deepseek'`). */
  dialect?: EmulatorDialect;
  /** Model name of the chunks (default `'deepseek-chat'`, or `'moonshot-v1-8k'` for moonshot). */
  model?: string;
  /** Like `stream_options.include_usage` (default false). */
  includeUsage?: boolean;
  /**
   * End with `data: [DONE]` (default true). `false` leaves it out: a stream that then closes after its finishing chunk
   * is a complete answer (`decodeChunk`'s rule); drop the finishing frame too for a cut one.
   */
  done?: boolean;
  /** `id` of every chunk (default `'chatcmpl-test'`). */
  id?: string;
  /** `created` of every chunk (default 1767225600). */
  created?: number;
  /** Other hosts' shapes layered on the dialect: Azure's filter chunk, `delta.reasoning`, Mistral's parts, `x_groq` usage, a refusal. */
  quirks?: ProviderQuirks;
}

const unquote = (text: string): string => (text.startsWith('"') ? (JSON.parse(text) as string) : text);

/**
 * Turns a transcript into the SSE frames a provider would send for it (each `data: …\n\n`, then `data: [DONE]\n\n`).
 *
 * A transcript has one item per line, `kind: text` (one leading space is dropped; a text starting with `"` is read
 * as a JSON string, for spaces and `\n`). Blank lines and lines starting with `#` are ignored.
 * ```text
 * reasoning: 让我想想        one reasoning_content delta (streamed before any content, as providers do)
 * content: 你好               one content delta
 * tool: get_weather           a tool call starts (its id is derived from the dialect); `tool: name {"a":1}` adds its arguments whole
 * args: {"city":"北          one more arguments fragment of the latest tool call
 * finish: stop                the finish reason (default `stop`, or `tool_calls` when there are tool calls)
 * ```
 * The first chunk carries the role; the finishing chunk carries usage where the dialect puts it (completion tokens
 * = number of deltas, prompt tokens = 10).
 *
 * ## Example
 * ```ts
 * transcriptFrames('content: 你好\ncontent: 🌏', { dialect: 'moonshot' }).length; // 5: role, 2 deltas, finish, [DONE]
 * ```
 *
 * @param transcript - The transcript text.
 * @param config - Dialect, model and ending.
 * @returns The frames, in order.
 * @throws ConfigError on an unknown kind, or `args:` before any `tool:`.
 */
export function transcriptFrames(transcript: string, config: TranscriptConfig = {}): string[] {
  const dialect = config.dialect ?? 'deepseek';
  const model = config.model ?? (dialect === 'moonshot' ? 'moonshot-v1-8k' : 'deepseek-chat');
  const reasoning: string[] = [];
  const content: string[] = [];
  const toolCalls: PlannedToolCall[] = [];
  let finish: string | undefined;
  for (const [n, raw] of transcript.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    const kind = colon === -1 ? line : line.slice(0, colon);
    const text = colon === -1 ? '' : unquote(line.slice(colon + 1).replace(/^ /, ''));
    if (kind === 'reasoning') reasoning.push(text);
    else if (kind === 'content') content.push(text);
    else if (kind === 'finish') finish = text;
    else if (kind === 'tool') {
      const space = text.indexOf(' ');
      const name = space === -1 ? text : text.slice(0, space);
      const args = space === -1 ? '' : text.slice(space + 1);
      const k = toolCalls.length;
      const id = dialect === 'moonshot' ? `${name}:${k}` : `call_0${k}_test`;
      toolCalls.push({ id, name, arguments: args, pieces: args === '' ? [] : [args] });
    } else if (kind === 'args') {
      const call = toolCalls[toolCalls.length - 1];
      if (call === undefined)
        throw new ConfigError(`transcript line ${n + 1}: "args:" needs a "tool:" line before it.`);
      call.pieces.push(text);
      call.arguments += text;
    } else {
      throw new ConfigError(
        `transcript line ${n + 1}: unknown kind "${kind}"; use reasoning, content, tool, args or finish.`,
      );
    }
  }
  const plan = {
    id: config.id ?? 'chatcmpl-test',
    created: config.created ?? 1767225600,
    model,
    systemFingerprint: dialect === 'moonshot' ? 'fpv0_test' : 'fp_test',
    promptTokens: 10,
    reasoner: reasoning.length > 0,
    choices: [
      {
        index: 0,
        reasoning: () => reasoning,
        content: () => content,
        toolCalls,
        finishReason: finish ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
  };
  const frames = [
    ...dialectFrames(plan, dialect, {
      includeUsage: config.includeUsage ?? false,
      ...(config.quirks === undefined ? {} : { quirks: config.quirks }),
    }),
  ].map((json) => `data: ${json}\n\n`);
  if (config.done !== false) frames.push('data: [DONE]\n\n');
  return frames;
}
