import type { ChatWireConfig } from './ChatWireConfig.js';
import { chatWireDecorator } from './chatWireDecorator.js';

/**
 * Serves the handler's `Flux<LlmClientOutputChunk>` as `/chat/stream` does: one JSON object per line, headers
 * committed with the first line; an error before it is a real status and the error line
 * `{"error":{…},"done":true}`, after it the same line in band. Backpressure through the request's demand gate
 * (`@Demand()`), disconnect unsubscribes the handler's Observable.
 *
 * ## Example
 * ```ts
 * @Post('lines') @ChatNdjson()
 * lines(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
 *   return this.client.stream(request, { demand }).pipe(filter((chunk) => chunk.message.content !== ''));
 * }
 * ```
 *

 * @param config Options of the writer (heartbeat interval for SSE, secrets to redact, shutdown signal).
 * @returns A method decorator (use it with `@Post()`).
 */
export function ChatNdjson(config?: ChatWireConfig): MethodDecorator {
  return chatWireDecorator('ndjson', config);
}
