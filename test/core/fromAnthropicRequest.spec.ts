import fc from 'fast-check';
import { fromAnthropicRequest } from '../../src/core/fromAnthropicRequest';
import { parseChatRequest } from '../../src/core/parseChatRequest';
import type { ChatCompletionRequest } from '../../src/core/schemas';
import { deepseekThinkingError } from '../../src/testing/deepseekThinkingError';
import { toolHistoryError } from '../../src/testing/toolHistoryError';

const base = { model: 'claude-x', max_tokens: 100 };
const user = (content: unknown) => ({ role: 'user', content });
const assistant = (content: unknown) => ({ role: 'assistant', content });

describe('fromAnthropicRequest: Anthropic\'s request as a chat-completions request', () => {
  it.each([
    ['a string message', { ...base, messages: [user('Hi')] }, { model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] }],
    ['system as a string', { ...base, system: 'Be brief.', messages: [user('Hi')] }, { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] }],
    [
      'system as text blocks (cache_control accepted, not forwarded)',
      { ...base, system: [{ type: 'text', text: 'A' }, { type: 'text', text: 'B', cache_control: { type: 'ephemeral' } }], messages: [user('Hi')] },
      { messages: [{ role: 'system', content: 'A\nB' }, { role: 'user', content: 'Hi' }] },
    ],
    ['text blocks joined', { ...base, messages: [user([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }])] }, { messages: [{ role: 'user', content: 'a\nb' }] }],
    [
      'images as image_url parts (base64 as a data URL, a URL as is)',
      { ...base, messages: [user([{ type: 'text', text: 'Look' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }, { type: 'image', source: { type: 'url', url: 'https://x/y.png' } }])] },
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Look' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
              { type: 'image_url', image_url: { url: 'https://x/y.png' } },
            ],
          },
        ],
      },
    ],
    [
      'an assistant turn: thinking as reasoning_content, tool_use as tool_calls; the results as tool messages before the text',
      {
        ...base,
        messages: [
          user('Weather?'),
          assistant([{ type: 'thinking', thinking: 'Use the tool.', signature: '' }, { type: 'text', text: 'Checking.' }, { type: 'tool_use', id: 'call_1', name: 'w', input: { city: 'Paris' } }]),
          user([{ type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: '18' }, { type: 'text', text: 'sunny' }] }, { type: 'text', text: 'And?' }]),
        ],
      },
      {
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: 'Checking.', reasoning_content: 'Use the tool.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'w', arguments: '{"city":"Paris"}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: '18\nsunny' },
          { role: 'user', content: 'And?' },
        ],
      },
    ],
    [
      'an error result says so',
      { ...base, messages: [user([{ type: 'tool_result', tool_use_id: 'c', content: 'boom', is_error: true }])] },
      { messages: [{ role: 'tool', tool_call_id: 'c', content: 'Error: boom' }] },
    ],
    [
      'tools, tool_choice any with disable_parallel_tool_use',
      { ...base, messages: [user('x')], tools: [{ name: 'w', description: 'd', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }], tool_choice: { type: 'any', disable_parallel_tool_use: true } },
      { tools: [{ type: 'function', function: { name: 'w', parameters: { type: 'object' }, description: 'd' } }], tool_choice: 'required', parallel_tool_calls: false },
    ],
    ['tool_choice tool', { ...base, messages: [user('x')], tool_choice: { type: 'tool', name: 'w' } }, { tool_choice: { type: 'function', function: { name: 'w' } } }],
    ['tool_choice auto, none', { ...base, messages: [user('x')], tool_choice: { type: 'none' } }, { tool_choice: 'none' }],
    ['thinking enabled', { ...base, messages: [user('x')], thinking: { type: 'enabled', budget_tokens: 2048 } }, { thinking: { type: 'enabled' } }],
    ['thinking disabled', { ...base, messages: [user('x')], thinking: { type: 'disabled' } }, { thinking: { type: 'disabled' } }],
    [
      'sampling, stop sequences, metadata; stream and service_tier accepted, not forwarded',
      { ...base, messages: [user('x')], temperature: 0.5, top_p: 0.9, top_k: 40, stop_sequences: ['END'], metadata: { user_id: 'u1' }, stream: true, service_tier: 'auto' },
      { temperature: 0.5, top_p: 0.9, top_k: 40, stop: ['END'], user: 'u1' },
    ],
    [
      "Claude Code's: a system message among the messages, context_management, adaptive thinking, effort, a deferred tool",
      {
        ...base,
        messages: [user('Hi'), { role: 'system', content: [{ type: 'text', text: 'Today is Thursday.', cache_control: { type: 'ephemeral' } }] }],
        thinking: { type: 'adaptive', display: 'omitted' },
        context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
        output_config: { effort: 'high' },
        tools: [
          { name: 'Write', input_schema: { type: 'object' } },
          { name: 'Hidden', input_schema: { type: 'object' }, defer_loading: true },
        ],
      },
      {
        messages: [{ role: 'user', content: 'Hi' }, { role: 'system', content: 'Today is Thursday.' }],
        tools: [{ type: 'function', function: { name: 'Write', parameters: { type: 'object' } } }],
      },
    ],
    [
      'a structured output format as response_format',
      { ...base, messages: [user('x')], output_config: { format: { type: 'json_schema', schema: { type: 'object' } } } },
      { response_format: { type: 'json_schema', json_schema: { name: 'output', schema: { type: 'object' }, strict: true } } },
    ],
  ])('%s', (_name, body, expected) => {
    const out = fromAnthropicRequest(body);
    expect(out).toEqual(expect.objectContaining(expected));
    for (const field of ['stream', 'thinking', 'context_management', 'output_config']) if (!(field in expected)) expect(out).not.toHaveProperty(field);
    expect(() => parseChatRequest(out)).not.toThrow();
  });

  it.each([
    ['not an object', [], '(body): expected a JSON object'],
    ['no max_tokens', { model: 'm', messages: [] }, 'max_tokens: expected a positive integer'],
    ['an unknown field', { ...base, messages: [], container: 'c' }, 'container: this field cannot be sent'],
    ['a server tool', { ...base, messages: [], tools: [{ type: 'bash_20250124', name: 'bash' }] }, 'tools.0.type: the server tool "bash_20250124" cannot be run'],
    ['a document', { ...base, messages: [user([{ type: 'document', source: {} }])] }, 'messages.0.content.0.type: a user content block of type "document"'],
    ['an image by file id', { ...base, messages: [user([{ type: 'image', source: { type: 'file', file_id: 'f' } }])] }, 'messages.0.content.0.source: only base64 and url image sources'],
    ['redacted thinking', { ...base, messages: [assistant([{ type: 'redacted_thinking', data: 'x' }])] }, 'messages.0.content.0.type: an assistant content block of type "redacted_thinking"'],
    ['an image in a tool result', { ...base, messages: [user([{ type: 'tool_result', tool_use_id: 'c', content: [{ type: 'image', source: {} }] }])] }, 'messages.0.content.0.content.0.type: a tool result block of type "image"'],
    ['a tool role in messages', { ...base, messages: [{ role: 'tool', content: 'x' }] }, 'messages.0.role: expected "user", "assistant" or "system"'],
    ['an unknown output_config field', { ...base, messages: [], output_config: { task_budget: 5 } }, 'output_config.task_budget: this field cannot be sent'],
    ['a wrong stream', { ...base, messages: [], stream: 'yes' }, 'stream: expected a boolean'],
    ['an unknown thinking type', { ...base, messages: [], thinking: { type: 'deep' } }, 'thinking.type: expected'],
  ])('refuses %s with a 400 naming it', (_name, body, message) => {
    expect(() => fromAnthropicRequest(body)).toThrow(expect.objectContaining({ name: 'RequestError', code: 'invalid_request', message: expect.stringContaining(message) }));
  });

  it('a token count may leave max_tokens out', () => {
    expect(fromAnthropicRequest({ model: 'm', messages: [user('x')] }, { countTokens: true })).toEqual({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
  });

  // A conversation of tool steps as Anthropic clients write them: each assistant turn thinks, may say something and
  // calls tools; the next user turn answers every call (and may add text).
  const text = fc.string({ minLength: 1, maxLength: 12 });
  const step = fc.record({
    thinking: text,
    said: fc.option(text, { nil: undefined }),
    calls: fc.uniqueArray(fc.record({ id: fc.stringMatching(/^call_[a-z0-9]{1,6}$/), input: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.jsonValue(), { maxKeys: 3 }) }), {
      minLength: 1,
      maxLength: 3,
      selector: (call) => call.id,
    }),
    results: fc.array(text, { minLength: 3, maxLength: 3 }),
    then: fc.option(text, { nil: undefined }),
  });

  it('property: a tool conversation in thinking mode keeps every text in order, every id, and the round trip DeepSeek requires', () => {
    fc.assert(
      fc.property(text, fc.array(step, { minLength: 1, maxLength: 4 }), (first, steps) => {
        const messages: unknown[] = [user(first)];
        const said: string[] = [first];
        steps.forEach((s, k) => {
          const calls = s.calls.map((call) => ({ ...call, id: `${call.id}_${k}` }));
          messages.push(
            assistant([
              { type: 'thinking', thinking: s.thinking, signature: '' },
              ...(s.said === undefined ? [] : [{ type: 'text', text: s.said }]),
              ...calls.map((call) => ({ type: 'tool_use', id: call.id, name: 'f', input: call.input })),
            ]),
          );
          said.push(s.thinking, ...(s.said === undefined ? [] : [s.said]));
          messages.push(
            user([...calls.map((call, i) => ({ type: 'tool_result', tool_use_id: call.id, content: s.results[i]! })), ...(s.then === undefined ? [] : [{ type: 'text', text: s.then }])]),
          );
          said.push(...calls.map((_call, i) => s.results[i]!), ...(s.then === undefined ? [] : [s.then]));
        });
        const out = fromAnthropicRequest({ ...base, thinking: { type: 'enabled', budget_tokens: 1024 }, tools: [{ name: 'f', input_schema: { type: 'object' } }], messages });
        const request = parseChatRequest(out) as ChatCompletionRequest;
        expect(toolHistoryError(request, 'deepseek')).toBeUndefined();
        expect(deepseekThinkingError(request)).toBeUndefined();
        const texts = request.messages.flatMap((m) => [...(typeof m.reasoning_content === 'string' ? [m.reasoning_content] : []), ...(typeof m.content === 'string' && m.content !== '' ? [m.content] : [])]);
        expect(texts).toEqual(said);
        const args = request.messages.flatMap((m) => (m.tool_calls ?? []).map((call) => [call.id, JSON.parse(call.function.arguments) as unknown]));
        expect(args).toEqual(steps.flatMap((s, k) => s.calls.map((call) => [`${call.id}_${k}`, JSON.parse(JSON.stringify(call.input)) as unknown])));
      }),
    );
  });
});
