import { ConfigError } from '../core/errors.js';
import type { ErrorBody } from '../core/schemas/index.js';
import { SSE_HEADERS } from './SSE_HEADERS.js';
import type { WireFormat } from './WireFormat.js';

/** The protocol's error part: the error's message as `errorText` (the only field `ai` 5.0.0 lets it have). */
const errorPart = (body: ErrorBody): string => JSON.stringify({ type: 'error', errorText: body.message });

/**
 * The wire of `POST /chat/ui`: the AI SDK's UI message stream (`useChat`, `DefaultChatTransport`,
 * `readUIMessageStream`), Server-Sent Events with the `x-vercel-ai-ui-message-stream: v1` header.
 *
 * ```text
 * a value (a part)         data: {"type":"text-delta","id":"text-1","delta":"Hi"}\n\n
 * the end (trailer)        data: [DONE]\n\n
 * an error, in-band        data: {"type":"error","errorText":"…"}\n\n      and no [DONE]
 * an error, before 200     its status, {"type":"error","errorText":"…"}  (application/json: the transport throws its text)
 * a heartbeat              : ping\n\n
 * ```
 *
 * `[DONE]` is written only when the answer completes: an answer cut by an error ends with the `error` part, so
 * `useChat` shows its error state, never a truncated answer as a complete one. The values are `toUiMessageStream`'s
 * parts; `encode` throws a `ConfigError` for a value that is not a part (an object with a string `type`).
 */
export const UI_MESSAGE_WIRE: WireFormat<unknown> = {
  headers: { ...SSE_HEADERS, 'x-vercel-ai-ui-message-stream': 'v1' },
  streaming: true,
  encode: (value) => {
    const type = (value as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || !/^[a-z-]+$/.test(type)) {
      throw new ConfigError(`A UI message stream value must be a part with a "type" (toUiMessageStream's output), got ${JSON.stringify(type) ?? typeof value}.`);
    }
    return `data: ${JSON.stringify(value)}\n\n`;
  },
  trailer: 'data: [DONE]\n\n',
  encodeError: (body) => `data: ${errorPart(body)}\n\n`,
  heartbeat: ': ping\n\n',
  errorResponse: { headers: { 'Content-Type': 'application/json' }, encodeError: errorPart },
};
