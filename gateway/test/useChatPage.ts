/**
 * The `useChat` test page (bundled by `bundleUseChatPage`, served next to the gateway by `gateway/test/useChat.browser.spec.ts`):
 * a React page with `@ai-sdk/react`'s `useChat` on the gateway's `POST /chat/ui`, as a Next.js or Vite front end
 * writes it — the three lines of docs/endpoints.md, plus a client-side tool. Its query string says where and how:
 * `api` (the gateway's `/chat/ui`), `chat` (the chat id), `model`, `resume=1` (`useChat({ resume: true })` and
 * `resume: true` in the body), `tools=1` (offer `get_weather`, answered in the browser by `onToolCall`).
 *
 * What the test reads: `#status` (useChat's status), `#error` (its error), and one `.message` per message
 * (`data-role`), with `.reasoning`, `.text` and `.tool` (`data-state`) parts in order.
 */
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithToolCalls, type UIMessage } from 'ai';
import { createElement as h, useState, type FormEvent, type ReactElement } from 'react';
import { createRoot } from 'react-dom/client';

const params = new URLSearchParams(location.search);
const api = params.get('api') ?? '/chat/ui';
const chatId = params.get('chat') ?? 'chat-1';
const model = params.get('model') ?? 'deepseek-reasoner';
const resume = params.get('resume') === '1';
const tools =
  params.get('tools') === '1'
    ? [{ type: 'function', function: { name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }]
    : undefined;

/** One part of a message, as the page shows it. */
function Part({ part }: { part: UIMessage['parts'][number] }): ReactElement | null {
  if (part.type === 'text') return h('p', { className: 'text' }, part.text);
  if (part.type === 'reasoning') return h('p', { className: 'reasoning' }, part.text);
  if (part.type.startsWith('tool-')) {
    const tool = part as { type: string; state: string; input?: unknown; output?: unknown };
    return h('pre', { className: 'tool', 'data-state': tool.state }, `${tool.type.slice(5)}(${JSON.stringify(tool.input ?? null)}) → ${JSON.stringify(tool.output ?? null)}`);
  }
  return null;
}

/** The chat. */
function Chat(): ReactElement {
  const [input, setInput] = useState('');
  const { messages, sendMessage, stop, status, error, addToolResult } = useChat({
    id: chatId,
    resume,
    transport: new DefaultChatTransport({ api, body: { model, ...(resume ? { resume: true } : {}), ...(tools === undefined ? {} : { tools }) } }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
    onToolCall: ({ toolCall }) => {
      if (toolCall.dynamic === true || toolCall.toolName !== 'get_weather') return;
      const { city } = toolCall.input as { city?: string };
      // Not awaited: awaiting addToolResult inside onToolCall deadlocks useChat (ai's docs).
      void addToolResult({ tool: 'get_weather', toolCallId: toolCall.toolCallId, output: { city, forecast: 'sunny, 21 °C' } });
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    void sendMessage({ text: input });
    setInput('');
  };
  return h(
    'main',
    null,
    h('h1', null, 'useChat on chatflux'),
    h(
      'section',
      { id: 'messages' },
      messages.map((message) =>
        h('div', { key: message.id, className: 'message', 'data-role': message.role }, h('b', null, message.role), ...message.parts.map((part, i) => h(Part, { key: i, part }))),
      ),
    ),
    h('p', { id: 'status' }, status),
    error === undefined ? null : h('p', { id: 'error', role: 'alert' }, error.message),
    h(
      'form',
      { onSubmit: submit },
      h('input', { id: 'prompt', value: input, placeholder: 'Ask something', onChange: (event: { target: { value: string } }) => setInput(event.target.value) }),
      h('button', { id: 'send', type: 'submit', disabled: status !== 'ready' && status !== 'error' }, 'Send'),
      h('button', { id: 'stop', type: 'button', onClick: () => void stop() }, 'Stop'),
    ),
  );
}

createRoot(document.getElementById('root') as HTMLElement).render(h(Chat));
