import { RequestError } from './errors.js';

/** Options of {@link fromAnthropicRequest}. */
export interface FromAnthropicRequestConfig {
  /**
   * Whether `max_tokens` may be left out (default `false`): Anthropic requires it of a message, not of a token count
   * (`/v1/messages/count_tokens`).
   */
  countTokens?: boolean;
}

/** A JSON object, as Anthropic's request is made of. */
type Json = Record<string, unknown>;

/**
 * Top-level fields of Anthropic's request that do not change what the answer says: accepted, not forwarded.
 * `context_management` asks Anthropic to clear old thinking or tool results from the context (the provider then sees
 * all of it).
 */
const IGNORED_FIELDS: ReadonlySet<string> = new Set(['stream', 'cache_control', 'service_tier', 'inference_geo', 'speed', 'diagnostics', 'context_management']);

/** Top-level fields mapped to the chat-completions request (see {@link fromAnthropicRequest}). */
const MAPPED_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'stop_sequences',
  'metadata',
  'temperature',
  'top_p',
  'top_k',
  'output_config',
]);

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A 400 `invalid_request` naming the field, in the words of a request schema's refusal. */
const refuse = (path: string, message: string): RequestError =>
  new RequestError('invalid_request', `invalid request body: ${path}: ${message}`, { issues: [`${path}: ${message}`] });

/** The blocks of a `content` (a string is one text block). */
const blocksOf = (content: unknown, path: string): Json[] => {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw refuse(path, 'expected a string or an array of content blocks');
  return content.map((block, i) => {
    if (!isObject(block) || typeof block['type'] !== 'string') throw refuse(`${path}.${i}`, 'expected a content block with a "type"');
    return block;
  });
};

/** A text block's text. */
const textOf = (block: Json, path: string): string => {
  if (typeof block['text'] !== 'string') throw refuse(`${path}.text`, 'expected a string');
  return block['text'];
};

/** An `image` block as an OpenAI `image_url` part: base64 as a data URL, a URL as it is. */
const imagePart = (block: Json, path: string): Json => {
  const source = block['source'];
  if (isObject(source) && source['type'] === 'base64' && typeof source['data'] === 'string' && typeof source['media_type'] === 'string') {
    return { type: 'image_url', image_url: { url: `data:${source['media_type']};base64,${source['data']}` } };
  }
  if (isObject(source) && source['type'] === 'url' && typeof source['url'] === 'string') return { type: 'image_url', image_url: { url: source['url'] } };
  throw refuse(`${path}.source`, 'only base64 and url image sources can be sent to an OpenAI-compatible provider');
};

/** A `tool_result` block's content as the `tool` message's text. */
const toolResultText = (block: Json, path: string): string => {
  const content = block['content'];
  let text = '';
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    text = blocksOf(content, `${path}.content`)
      .map((part, i) => {
        if (part['type'] !== 'text') throw refuse(`${path}.content.${i}.type`, `a tool result block of type "${String(part['type'])}" cannot be sent to an OpenAI-compatible provider (only text)`);
        return textOf(part, `${path}.content.${i}`);
      })
      .join('\n');
  } else if (content !== undefined && content !== null) throw refuse(`${path}.content`, 'expected a string or an array of text blocks');
  return block['is_error'] === true ? `Error: ${text}` : text;
};

/** A system prompt's text: a string, or its text blocks joined by a line break. */
const systemText = (content: unknown, path: string): string =>
  blocksOf(content, path)
    .map((block, i) => {
      if (block['type'] !== 'text') throw refuse(`${path}.${i}.type`, 'expected a text block');
      return textOf(block, `${path}.${i}`);
    })
    .join('\n');

/** One user turn: its `tool_result` blocks as `tool` messages first (they answer the turn before), then its text and images. */
const userMessages = (content: unknown, path: string): Json[] => {
  const tools: Json[] = [];
  const parts: Json[] = [];
  blocksOf(content, path).forEach((block, i) => {
    const at = `${path}.${i}`;
    switch (block['type']) {
      case 'text':
        parts.push({ type: 'text', text: textOf(block, at) });
        return;
      case 'image':
        parts.push(imagePart(block, at));
        return;
      case 'tool_result':
        if (typeof block['tool_use_id'] !== 'string') throw refuse(`${at}.tool_use_id`, 'expected a string');
        tools.push({ role: 'tool', tool_call_id: block['tool_use_id'], content: toolResultText(block, at) });
        return;
      default:
        throw refuse(`${at}.type`, `a user content block of type "${String(block['type'])}" cannot be sent to an OpenAI-compatible provider`);
    }
  });
  if (parts.length === 0) return tools;
  const onlyText = parts.every((part) => part['type'] === 'text');
  return [...tools, { role: 'user', content: onlyText ? parts.map((part) => part['text'] as string).join('\n') : parts }];
};

/** One assistant turn: its text, its thinking as `reasoning_content`, its `tool_use` blocks as `tool_calls`. */
const assistantMessage = (content: unknown, path: string): Json => {
  let text = '';
  let reasoning: string | undefined;
  const calls: Json[] = [];
  blocksOf(content, path).forEach((block, i) => {
    const at = `${path}.${i}`;
    switch (block['type']) {
      case 'text':
        text += textOf(block, at);
        return;
      case 'thinking':
        if (typeof block['thinking'] !== 'string') throw refuse(`${at}.thinking`, 'expected a string');
        reasoning = (reasoning ?? '') + block['thinking'];
        return;
      case 'tool_use':
        if (typeof block['id'] !== 'string' || typeof block['name'] !== 'string') throw refuse(at, 'a tool_use block needs a string "id" and "name"');
        calls.push({ id: block['id'], type: 'function', function: { name: block['name'], arguments: JSON.stringify(block['input'] ?? {}) } });
        return;
      default:
        throw refuse(`${at}.type`, `an assistant content block of type "${String(block['type'])}" cannot be sent to an OpenAI-compatible provider`);
    }
  });
  const message: Json = { role: 'assistant', content: text };
  if (reasoning !== undefined) message['reasoning_content'] = reasoning;
  if (calls.length > 0) message['tool_calls'] = calls;
  return message;
};

/** Anthropic's `tool_choice` as OpenAI's, and whether it forbids parallel calls. */
const toolChoiceOf = (choice: unknown): { choice: unknown; parallel?: false } => {
  if (!isObject(choice)) throw refuse('tool_choice', 'expected an object with a "type"');
  const parallel = choice['disable_parallel_tool_use'] === true ? { parallel: false as const } : {};
  switch (choice['type']) {
    case 'auto':
      return { choice: 'auto', ...parallel };
    case 'any':
      return { choice: 'required', ...parallel };
    case 'none':
      return { choice: 'none' };
    case 'tool':
      if (typeof choice['name'] !== 'string') throw refuse('tool_choice.name', 'expected a string');
      return { choice: { type: 'function', function: { name: choice['name'] } }, ...parallel };
    default:
      throw refuse('tool_choice.type', 'expected "auto", "any", "tool" or "none"');
  }
};

/** A custom tool as an OpenAI function; a server tool (`web_search_…`, `bash_…`) cannot be run by the provider. */
const toolOf = (tool: Json, i: number): Json => {
  const type = tool['type'];
  if (type !== undefined && type !== null && type !== 'custom') {
    throw refuse(`tools.${i}.type`, `the server tool "${String(type)}" cannot be run by an OpenAI-compatible provider; declare a custom tool (name, input_schema)`);
  }
  if (typeof tool['name'] !== 'string') throw refuse(`tools.${i}.name`, 'expected a string');
  if (!isObject(tool['input_schema'])) throw refuse(`tools.${i}.input_schema`, 'expected a JSON schema object');
  const fn: Json = { name: tool['name'], parameters: tool['input_schema'] };
  if (typeof tool['description'] === 'string') fn['description'] = tool['description'];
  if (typeof tool['strict'] === 'boolean') fn['strict'] = tool['strict'];
  return { type: 'function', function: fn };
};

/**
 * Anthropic's Messages request (`POST /v1/messages`) as a chat-completions request, for any OpenAI-compatible route:
 * a pure function, checked field by field (every refusal a 400 `invalid_request` naming the field and why).
 *
 * | Anthropic                                   | chat completions                                                      |
 * | ------------------------------------------- | --------------------------------------------------------------------- |
 * | `system` (a string or text blocks)          | a first `system` message (blocks joined by a line break)              |
 * | a `system` message among the messages       | a `system` message there                                              |
 * | user `text` / `image` (base64, url) blocks  | a `user` message: a string, or `text` / `image_url` parts             |
 * | user `tool_result` blocks                   | `tool` messages (before the turn's text); `is_error`: `Error: ` first  |
 * | assistant `text` / `thinking` / `tool_use`  | `content` / `reasoning_content` / `tool_calls` (input as JSON text)   |
 * | `tools` (custom: name, description, input_schema, strict) | `tools` of `type: "function"`; a `defer_loading` tool is not sent (the model does not see it until a tool search finds it) |
 * | `tool_choice` auto / any / tool / none      | `auto` / `required` / `{function: {name}}` / `none`; `disable_parallel_tool_use` → `parallel_tool_calls: false` |
 * | `thinking` enabled / disabled               | `thinking: {type: "enabled" / "disabled"}` (DeepSeek's, Kimi's); adaptive: the provider's default |
 * | `max_tokens`, `stop_sequences`, `temperature`, `top_p`, `top_k` | `max_tokens`, `stop`, `temperature`, `top_p`, `top_k` |
 * | `metadata.user_id`                          | `user`                                                                |
 * | `output_config.format` (`json_schema`)      | `response_format: {type: "json_schema", …}`; `output_config.effort`: a hint, not sent |
 *
 * 1. `thinking` blocks come back as `reasoning_content`, so the round trip DeepSeek's thinking mode requires with
 *    tools (the reasoning of every assistant turn that called tools) holds.
 * 2. What would change the answer and has no counterpart is refused, never dropped: a server tool, a `document`,
 *    `redacted_thinking` or `search_result` block, an image by file id, a non-text tool result, an unknown field.
 *    What does not change what the answer says is accepted and not forwarded: `cache_control` (the providers cache
 *    prompts by themselves), `stream` (the endpoint's wire), `service_tier`, `inference_geo`, `speed`, `diagnostics`,
 *    `context_management`, a thinking budget or effort (`budget_tokens`, `output_config.effort`, adaptive thinking:
 *    the provider's own), tool fields such as `input_examples` and `eager_input_streaming`.
 *
 * @param body - The parsed JSON body.
 * @param config - Whether it is a token count's (`max_tokens` optional).
 * @returns The chat-completions request (then checked by `parseChatRequest`, as every endpoint's).
 * @throws RequestError `invalid_request` naming the field.
 */
export function fromAnthropicRequest(body: unknown, config: FromAnthropicRequestConfig = {}): Record<string, unknown> {
  if (!isObject(body)) throw refuse('(body)', 'expected a JSON object');
  for (const field of Object.keys(body)) {
    if (!MAPPED_FIELDS.has(field) && !IGNORED_FIELDS.has(field)) {
      throw refuse(field, 'this field cannot be sent to an OpenAI-compatible provider; leave it out');
    }
  }
  if (body['stream'] !== undefined && typeof body['stream'] !== 'boolean') throw refuse('stream', 'expected a boolean');
  if (typeof body['model'] !== 'string' || body['model'] === '') throw refuse('model', 'expected a model name');
  const maxTokens = body['max_tokens'];
  if (!(config.countTokens === true && maxTokens === undefined) && (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1)) {
    throw refuse('max_tokens', 'expected a positive integer');
  }
  if (!Array.isArray(body['messages'])) throw refuse('messages', 'expected an array of messages');
  const messages: Json[] = [];
  const system = body['system'];
  if (system !== undefined && system !== null) messages.push({ role: 'system', content: systemText(system, 'system') });
  body['messages'].forEach((message: unknown, i) => {
    if (!isObject(message)) throw refuse(`messages.${i}`, 'expected a message object');
    const path = `messages.${i}.content`;
    if (message['role'] === 'user') messages.push(...userMessages(message['content'], path));
    else if (message['role'] === 'assistant') messages.push(assistantMessage(message['content'], path));
    else if (message['role'] === 'system') messages.push({ role: 'system', content: systemText(message['content'], path) });
    else throw refuse(`messages.${i}.role`, 'expected "user", "assistant" or "system"');
  });
  const request: Json = { model: body['model'], messages };
  if (maxTokens !== undefined) request['max_tokens'] = maxTokens;
  const tools = body['tools'];
  if (tools !== undefined && tools !== null) {
    if (!Array.isArray(tools)) throw refuse('tools', 'expected an array');
    // A deferred tool (`defer_loading`) is not shown to the model until a tool search finds it: not sent.
    const shown = tools.flatMap((tool: unknown, i) => {
      if (!isObject(tool)) throw refuse(`tools.${i}`, 'expected an object');
      return tool['defer_loading'] === true ? [] : [toolOf(tool, i)];
    });
    if (shown.length > 0) request['tools'] = shown;
  }
  if (body['tool_choice'] !== undefined && body['tool_choice'] !== null) {
    const { choice, parallel } = toolChoiceOf(body['tool_choice']);
    request['tool_choice'] = choice;
    if (parallel !== undefined) request['parallel_tool_calls'] = parallel;
  }
  const thinking = body['thinking'];
  if (thinking !== undefined && thinking !== null) {
    const type = isObject(thinking) ? thinking['type'] : undefined;
    if (type === 'enabled' || type === 'disabled') request['thinking'] = { type };
    else if (type !== 'adaptive') throw refuse('thinking.type', 'expected "enabled", "disabled" or "adaptive"');
  }
  const stop = body['stop_sequences'];
  if (stop !== undefined && stop !== null) {
    if (!Array.isArray(stop) || !stop.every((sequence) => typeof sequence === 'string')) throw refuse('stop_sequences', 'expected an array of strings');
    if (stop.length > 0) request['stop'] = stop;
  }
  for (const field of ['temperature', 'top_p', 'top_k'] as const) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number') throw refuse(field, 'expected a number');
    request[field] = value;
  }
  const output = body['output_config'];
  if (output !== undefined && output !== null) {
    if (!isObject(output)) throw refuse('output_config', 'expected an object');
    for (const key of Object.keys(output)) {
      if (key !== 'effort' && key !== 'format') throw refuse(`output_config.${key}`, 'this field cannot be sent to an OpenAI-compatible provider; leave it out');
    }
    const format = output['format'];
    if (format !== undefined && format !== null) {
      if (!isObject(format) || format['type'] !== 'json_schema' || !isObject(format['schema'])) throw refuse('output_config.format', 'expected {"type": "json_schema", "schema": {…}}');
      request['response_format'] = { type: 'json_schema', json_schema: { name: 'output', schema: format['schema'], strict: true } };
    }
  }
  const metadata = body['metadata'];
  if (metadata !== undefined && metadata !== null) {
    if (!isObject(metadata)) throw refuse('metadata', 'expected an object');
    if (typeof metadata['user_id'] === 'string') request['user'] = metadata['user_id'];
  }
  return request;
}
