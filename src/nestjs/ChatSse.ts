import type { ChatWireConfig } from './ChatWireConfig.js';
import { chatWireDecorator } from './chatWireDecorator.js';

/**
 * Serves the handler's `Flux` of chunks (or of `ServerSentEvent`s) as `/chat/sse` does, on POST — unlike Nest's
 * `@Sse()`: headers committed lazily (an early error keeps its real status), `data: [DONE]` at the end,
 * `event: error` + `[DONE]` for an error, `: ping` heartbeats during silences, writes paced by the client through
 * the request's demand gate (`@Demand()`), and disconnect detected on the response, not on the request.
 *
 * ## Example
 * ```ts
 * @Post('ask') @ChatSse()
 * ask(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
 *   return this.client.sse(request, { demand });
 * }
 * ```
 *
 * @param config Options of the writer (heartbeat interval for SSE, secrets to redact, shutdown signal).
 * @returns A method decorator (use it with `@Post()`).
 */
export function ChatSse(config?: ChatWireConfig): MethodDecorator {
  return chatWireDecorator('sse', config);
}
