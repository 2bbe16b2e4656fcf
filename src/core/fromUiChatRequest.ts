import { RequestError } from './errors.js';

/** A JSON object, as the UI messages are made of. */
type Json = Record<string, unknown>;

/**
 * The chat-completions fields a transport's `body` may add beside `messages` (`DefaultChatTransport({ body: { model,
 * tools } })`), passed as they are (then checked by `parseChatRequest` and the request policy, as every endpoint's).
 */
const FORWARDED_FIELDS: readonly string[] = ['tools', 'tool_choice', 'parallel_tool_calls', 'temperature', 'top_p', 'max_tokens', 'stop', 'thinking'];

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A 400 `invalid_request` naming the field, in the words of a request schema's refusal. */
const refuse = (path: string, message: string): RequestError =>
  new RequestError('invalid_request', `invalid request body: ${path}: ${message}`, { issues: [`${path}: ${message}`] });

/** A part's string field. */
const stringOf = (part: Json, field: string, path: string): string => {
  const value = part[field];
  if (typeof value !== 'string') throw refuse(`${path}.${field}`, 'expected a string');
  return value;
};

/** Whether a part is a tool part: `tool-<name>` (a static tool) or `dynamic-tool`. */
const isToolPart = (type: string): boolean => type.startsWith('tool-') || type === 'dynamic-tool';

/** Parts that say nothing to the model: the step markers, sources, the application's own data parts. */
const isSilent = (type: string): boolean => type === 'step-start' || type === 'source-url' || type === 'source-document' || type.startsWith('data-');

/** A tool output as the `tool` message's text: a string as it is, anything else as JSON. */
const outputText = (output: unknown): string => (typeof output === 'string' ? output : (JSON.stringify(output) ?? 'null'));

/** A text part's text, or a refusal for a part a system message cannot hold. */
const systemMessage = (parts: Json[], path: string): Json => ({
  role: 'system',
  content: parts
    .map((part, i) => {
      if (part['type'] === 'text') return stringOf(part, 'text', `${path}.${i}`);
      if (isSilent(part['type'] as string)) return '';
      throw refuse(`${path}.${i}.type`, `a system message part of type "${String(part['type'])}" cannot be sent; a system message holds text`);
    })
    .join(''),
});

/** A user turn: its text (one string) or, with images, `text` and `image_url` parts. */
const userMessage = (parts: Json[], path: string): Json => {
  const content: Json[] = [];
  parts.forEach((part, i) => {
    const at = `${path}.${i}`;
    const type = part['type'] as string;
    if (type === 'text') content.push({ type: 'text', text: stringOf(part, 'text', at) });
    else if (type === 'file') {
      const mediaType = stringOf(part, 'mediaType', at);
      if (!mediaType.startsWith('image/')) throw refuse(`${at}.mediaType`, `a file of type "${mediaType}" cannot be sent to an OpenAI-compatible provider (only images)`);
      content.push({ type: 'image_url', image_url: { url: stringOf(part, 'url', at) } });
    } else if (!isSilent(type)) throw refuse(`${at}.type`, `a user message part of type "${type}" cannot be sent to an OpenAI-compatible provider`);
  });
  const onlyText = content.every((part) => part['type'] === 'text');
  return { role: 'user', content: onlyText ? content.map((part) => part['text'] as string).join('\n') : content };
};

/** One step of an assistant turn: an assistant message (text, reasoning, tool calls), then a `tool` message per result. */
const stepMessages = (parts: readonly [Json, string][]): Json[] => {
  let text = '';
  let reasoning: string | undefined;
  const calls: Json[] = [];
  const results: Json[] = [];
  for (const [part, at] of parts) {
    const type = part['type'] as string;
    if (type === 'text') text += stringOf(part, 'text', at);
    else if (type === 'reasoning') reasoning = (reasoning ?? '') + stringOf(part, 'text', at);
    else if (isToolPart(type)) {
      const name = type === 'dynamic-tool' ? stringOf(part, 'toolName', at) : type.slice('tool-'.length);
      if (name === '') throw refuse(`${at}.type`, 'expected "tool-<name>" with the tool\'s name');
      const id = stringOf(part, 'toolCallId', at);
      const state = part['state'];
      // A call without its result (still streaming, awaiting the client's addToolResult, or a preliminary output) is
      // left out, as ai's convertToModelMessages({ignoreIncompleteToolCalls: true}) does: a provider refuses a call
      // that no tool message answers.
      if (state === 'input-streaming' || state === 'input-available' || (state === 'output-available' && part['preliminary'] === true)) continue;
      if (state !== 'output-available' && state !== 'output-error') {
        throw refuse(`${at}.state`, 'expected "input-streaming", "input-available", "output-available" or "output-error"');
      }
      calls.push({ id, type: 'function', function: { name, arguments: JSON.stringify(part['input'] ?? {}) } });
      results.push({ role: 'tool', tool_call_id: id, content: state === 'output-error' ? `Error: ${stringOf(part, 'errorText', at)}` : outputText(part['output']) });
    } else if (type === 'file') throw refuse(`${at}.type`, 'an assistant message part of type "file" cannot be sent to an OpenAI-compatible provider');
    else if (!isSilent(type)) throw refuse(`${at}.type`, `an assistant message part of type "${type}" cannot be sent to an OpenAI-compatible provider`);
  }
  if (text === '' && reasoning === undefined && calls.length === 0) return [];
  const message: Json = { role: 'assistant', content: text };
  if (reasoning !== undefined) message['reasoning_content'] = reasoning;
  if (calls.length > 0) message['tool_calls'] = calls;
  return [message, ...results];
};

/** An assistant turn: its steps (split at `step-start`, as `ai`'s `convertToModelMessages` splits them). */
const assistantMessages = (parts: Json[], path: string): Json[] => {
  const steps: [Json, string][][] = [[]];
  parts.forEach((part, i) => {
    if (part['type'] === 'step-start') steps.push([]);
    else steps.at(-1)!.push([part, `${path}.${i}`]);
  });
  return steps.flatMap(stepMessages);
};

/**
 * The AI SDK's chat request (`useChat`'s `DefaultChatTransport`: `{id, messages: UIMessage[], trigger, messageId}`,
 * plus the transport's `body`, such as `model`) as a chat-completions request: a pure function, checked part by part
 * (every refusal a 400 `invalid_request` naming the part and why; `POST /chat/ui` answers it as the protocol's error).
 *
 * | UI message part                                   | chat completions                                               |
 * | ------------------------------------------------- | -------------------------------------------------------------- |
 * | `system`: `text`                                  | a `system` message (texts joined)                              |
 * | `user`: `text` / `file` (an image)                | a `user` message: a string, or `text` / `image_url` parts      |
 * | `assistant`: `text` / `reasoning`                 | `content` / `reasoning_content` of the step's assistant message |
 * | `assistant`: `tool-<name>` / `dynamic-tool` with `output-available` / `output-error` | a `tool_calls` entry (input as JSON text) and a `tool` message (the output as text, a string as it is; an error: `Error: ` first) |
 * | `step-start`                                      | a new assistant message (a step of its own)                    |
 * | `source-url`, `source-document`, `data-*`         | nothing (they say nothing to the model)                        |
 *
 * 1. `reasoning` parts come back as `reasoning_content`, so the round trip DeepSeek's thinking mode requires with tools
 *    (the reasoning of every assistant step that called tools) holds.
 * 2. A tool call without its result yet (`input-streaming`, `input-available`, a preliminary output) is left out: the
 *    provider would refuse a call no tool message answers.
 * 3. Beside `messages`, the transport's `body` may name `model` and the tools and sampling of the request (`tools`,
 *    `tool_choice`, `parallel_tool_calls`, `temperature`, `top_p`, `max_tokens`, `stop`, `thinking`), passed as they
 *    are; its other fields (`id`, `trigger`, `messageId`, the application's own) are not sent.
 * 4. What cannot be sent is refused, never dropped: a file other than an image, a file in an assistant turn, an
 *    unknown part type or role, a part without its fields.
 *
 * @param body - The parsed JSON body.
 * @returns The chat-completions request (`model` only when the body names one; then checked by `parseChatRequest`).
 * @throws RequestError `invalid_request` naming the field.
 */
export function fromUiChatRequest(body: unknown): Record<string, unknown> {
  if (!isObject(body)) throw refuse('(body)', 'expected a JSON object');
  const model = body['model'];
  if (model !== undefined && (typeof model !== 'string' || model === '')) throw refuse('model', 'expected a model name');
  if (!Array.isArray(body['messages'])) throw refuse('messages', 'expected an array of UI messages');
  const messages = body['messages'].flatMap((message: unknown, i): Json[] => {
    if (!isObject(message)) throw refuse(`messages.${i}`, 'expected a UI message object');
    const path = `messages.${i}.parts`;
    const parts = message['parts'];
    if (!Array.isArray(parts)) throw refuse(path, 'expected an array of parts');
    parts.forEach((part: unknown, j) => {
      if (!isObject(part) || typeof part['type'] !== 'string') throw refuse(`${path}.${j}`, 'expected a part with a "type"');
    });
    const checked = parts as Json[];
    if (message['role'] === 'user') return [userMessage(checked, path)];
    if (message['role'] === 'assistant') return assistantMessages(checked, path);
    if (message['role'] === 'system') return [systemMessage(checked, path)];
    throw refuse(`messages.${i}.role`, 'expected "user", "assistant" or "system"');
  });
  const request: Json = model === undefined ? { messages } : { model, messages };
  for (const field of FORWARDED_FIELDS) if (body[field] !== undefined) request[field] = body[field];
  return request;
}
