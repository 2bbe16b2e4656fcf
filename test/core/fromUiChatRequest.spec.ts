import fc from 'fast-check';
import { fromUiChatRequest } from '../../src/core/fromUiChatRequest';
import { parseChatRequest } from '../../src/core/parseChatRequest';
import { toErrorResponse } from '../../src/core/toErrorResponse';
import type { ChatCompletionRequest } from '../../src/core/schemas';
import { deepseekThinkingError } from '../../src/testing/deepseekThinkingError';
import { toolHistoryError } from '../../src/testing/toolHistoryError';
import { UI_MESSAGE_WIRE } from '../../src/wire/UI_MESSAGE_WIRE';

const user = (...parts: unknown[]) => ({ id: 'u', role: 'user', parts });
const assistant = (...parts: unknown[]) => ({ id: 'a', role: 'assistant', parts });
const text = (t: string) => ({ type: 'text', text: t, state: 'done' });
const body = (...messages: unknown[]) => ({ id: 'chat-1', trigger: 'submit-message', messageId: undefined, messages });

describe("fromUiChatRequest: the AI SDK's chat request as a chat-completions request", () => {
  it.each([
    ['a text message; the transport\'s fields (id, trigger) are not forwarded', body(user(text('Hi'))), { messages: [{ role: 'user', content: 'Hi' }] }],
    ['model beside messages', { ...body(user(text('Hi'))), model: 'deepseek-chat' }, { model: 'deepseek-chat', messages: [{ role: 'user', content: 'Hi' }] }],
    [
      "the body's tools and sampling passed as they are; the application's own fields not",
      { ...body(user(text('Hi'))), tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }], tool_choice: 'auto', temperature: 0.2, max_tokens: 9, userId: 'u1' },
      { messages: [{ role: 'user', content: 'Hi' }], tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }], tool_choice: 'auto', temperature: 0.2, max_tokens: 9 },
    ],
    ['a system message; text parts joined', body({ id: 's', role: 'system', parts: [text('Be '), text('brief.')] }, user(text('a'), text('b'))), { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'a\nb' }] }],
    [
      'an image file as an image_url part',
      body(user(text('Look'), { type: 'file', mediaType: 'image/png', url: 'data:image/png;base64,AAAA' })),
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'Look' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }] },
    ],
    [
      'an assistant turn: reasoning as reasoning_content, text as content, a tool part with output as a call and a tool message; each step its own message',
      body(
        user(text('Weather?')),
        assistant(
          { type: 'step-start' },
          { type: 'reasoning', text: 'Use the tool.', state: 'done' },
          text('Checking.'),
          { type: 'tool-weather', toolCallId: 'call_1', state: 'output-available', input: { city: 'Paris' }, output: { c: 18 } },
          { type: 'dynamic-tool', toolName: 'clock', toolCallId: 'call_2', state: 'output-error', input: {}, errorText: 'no clock' },
          { type: 'step-start' },
          { type: 'reasoning', text: 'Done.' },
          text('18 °C.'),
          { type: 'source-url', sourceId: 's', url: 'https://x' },
          { type: 'data-weather', data: { any: 1 } },
        ),
        user(text('Thanks')),
      ),
      {
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: 'Checking.',
            reasoning_content: 'Use the tool.',
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
              { id: 'call_2', type: 'function', function: { name: 'clock', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '{"c":18}' },
          { role: 'tool', tool_call_id: 'call_2', content: 'Error: no clock' },
          { role: 'assistant', content: '18 °C.', reasoning_content: 'Done.' },
          { role: 'user', content: 'Thanks' },
        ],
      },
    ],
    [
      'a string output as it is; a call without its result yet (input-available, streaming, preliminary) left out',
      body(
        assistant(
          { type: 'tool-f', toolCallId: 'c1', state: 'output-available', input: { q: 1 }, output: 'plain' },
          { type: 'tool-f', toolCallId: 'c2', state: 'input-available', input: {} },
          { type: 'tool-f', toolCallId: 'c3', state: 'input-streaming' },
          { type: 'tool-f', toolCallId: 'c4', state: 'output-available', input: {}, output: 'partial', preliminary: true },
        ),
      ),
      { messages: [{ role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"q":1}' } }] }, { role: 'tool', tool_call_id: 'c1', content: 'plain' }] },
    ],
    ['an assistant turn of only an incomplete call is no message', body(user(text('x')), assistant({ type: 'step-start' }, { type: 'tool-f', toolCallId: 'c', state: 'input-available', input: {} })), { messages: [{ role: 'user', content: 'x' }] }],
  ])('%s', (_name, input, expected) => {
    const out = fromUiChatRequest(input);
    expect(out).toEqual(expected);
    expect(() => parseChatRequest({ model: 'm', ...out })).not.toThrow();
  });

  it.each([
    ['not an object', [], '(body): expected a JSON object'],
    ['no messages', { id: 'x' }, 'messages: expected an array of UI messages'],
    ['a bad model', { messages: [], model: 3 }, 'model: expected a model name'],
    ['a message without parts', { messages: [{ role: 'user', content: 'Hi' }] }, 'messages.0.parts: expected an array of parts'],
    ['a part without a type', body(user({ text: 'x' })), 'messages.0.parts.0: expected a part with a "type"'],
    ['an unknown role', body({ role: 'tool', parts: [] }), 'messages.0.role: expected "user", "assistant" or "system"'],
    ['a text part without text', body(user({ type: 'text' })), 'messages.0.parts.0.text: expected a string'],
    ['a PDF', body(user({ type: 'file', mediaType: 'application/pdf', url: 'data:,x' })), 'messages.0.parts.0.mediaType: a file of type "application/pdf" cannot be sent'],
    ['a file in an assistant turn', body(assistant({ type: 'file', mediaType: 'image/png', url: 'x' })), 'messages.0.parts.0.type: an assistant message part of type "file"'],
    ['reasoning in a user turn', body(user({ type: 'reasoning', text: 'x' })), 'messages.0.parts.0.type: a user message part of type "reasoning"'],
    ['a tool part in a system message', body({ role: 'system', parts: [{ type: 'tool-f' }] }), 'messages.0.parts.0.type: a system message part of type "tool-f"'],
    ['an unknown tool state', body(assistant({ type: 'tool-f', toolCallId: 'c', state: 'done' })), 'messages.0.parts.0.state: expected'],
    ['a tool part without its id', body(assistant({ type: 'tool-f', state: 'output-available', output: 1 })), 'messages.0.parts.0.toolCallId: expected a string'],
    ['a tool error without its text', body(assistant({ type: 'tool-f', toolCallId: 'c', state: 'output-error' })), 'messages.0.parts.0.errorText: expected a string'],
    ['a tool part without a name', body(assistant({ type: 'tool-', toolCallId: 'c', state: 'output-available', output: 1 })), 'messages.0.parts.0.type: expected "tool-<name>"'],
  ])('refuses %s with a 400 naming it, in the protocol\'s error shape', (_name, input, message) => {
    let error: unknown;
    try {
      fromUiChatRequest(input);
    } catch (e) {
      error = e;
    }
    expect(error).toEqual(expect.objectContaining({ name: 'RequestError', code: 'invalid_request', message: expect.stringContaining(message) }));
    const { status, body: errorBody } = toErrorResponse(error);
    expect(status).toBe(400);
    expect(JSON.parse(UI_MESSAGE_WIRE.errorResponse!.encodeError(errorBody))).toEqual({ type: 'error', errorText: expect.stringContaining(message) });
  });

  // A conversation of tool steps as useChat keeps it: each assistant step thinks, may say something and calls tools
  // whose results the client added; the next user message may follow.
  const words = fc.string({ minLength: 1, maxLength: 12 });
  const step = fc.record({
    thinking: words,
    said: fc.option(words, { nil: undefined }),
    calls: fc.uniqueArray(
      fc.record({
        id: fc.stringMatching(/^call_[a-z0-9]{1,6}$/),
        input: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.jsonValue(), { maxKeys: 3 }),
        output: fc.oneof(words, fc.jsonValue()),
        failed: fc.boolean(),
      }),
      { minLength: 1, maxLength: 3, selector: (call) => call.id },
    ),
  });

  it('property: a tool conversation in thinking mode keeps every text in order, every id and input, and the round trip DeepSeek requires', () => {
    fc.assert(
      fc.property(words, fc.array(fc.array(step, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }), (first, turns) => {
        const messages: unknown[] = [user(text(first))];
        const said: string[] = [first];
        const expectedCalls: [string, unknown][] = [];
        turns.forEach((steps, t) => {
          const parts: unknown[] = [];
          steps.forEach((s, k) => {
            const calls = s.calls.map((call) => ({ ...call, id: `${call.id}_${t}_${k}` }));
            parts.push({ type: 'step-start' }, { type: 'reasoning', text: s.thinking, state: 'done' }, ...(s.said === undefined ? [] : [text(s.said)]));
            parts.push(
              ...calls.map((call) =>
                call.failed
                  ? { type: 'tool-f', toolCallId: call.id, state: 'output-error', input: call.input, errorText: 'boom' }
                  : { type: 'tool-f', toolCallId: call.id, state: 'output-available', input: call.input, output: call.output },
              ),
            );
            said.push(s.thinking, ...(s.said === undefined ? [] : [s.said]), ...calls.map((call) => (call.failed ? 'Error: boom' : typeof call.output === 'string' ? call.output : JSON.stringify(call.output))));
            expectedCalls.push(...calls.map((call): [string, unknown] => [call.id, JSON.parse(JSON.stringify(call.input)) as unknown]));
          });
          messages.push(assistant(...parts), user(text(`next ${t}`)));
          said.push(`next ${t}`);
        });
        const request = parseChatRequest({ model: 'deepseek-reasoner', ...fromUiChatRequest(body(...messages)) }) as ChatCompletionRequest;
        expect(toolHistoryError(request, 'deepseek')).toBeUndefined();
        expect(deepseekThinkingError(request)).toBeUndefined();
        const texts = request.messages.flatMap((m) => [...(typeof m.reasoning_content === 'string' ? [m.reasoning_content] : []), ...(typeof m.content === 'string' && (m.content !== '' || m.role === 'tool') ? [m.content] : [])]);
        expect(texts).toEqual(said);
        const args = request.messages.flatMap((m) => (m.tool_calls ?? []).map((call) => [call.id, JSON.parse(call.function.arguments) as unknown]));
        expect(args).toEqual(expectedCalls);
      }),
    );
  });
});
