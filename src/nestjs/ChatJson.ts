import type { ChatWireConfig } from './ChatWireConfig.js';
import { chatWireDecorator } from './chatWireDecorator.js';

/**
 * Serves the handler's `Mono<LlmClientOutput>` (or promise, or value) as `/chat/json` does: one JSON object with
 * status 200, or the `{"error":{message,type,code}}` body with a real status (a zod pipe's 400, the upstream's
 * 429/502/504, …). Bytes and headers are those of the Express router (same node writer).
 *
 * ## Example
 * ```ts
 * @Post('answer') @ChatJson()
 * answer(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
 *   return this.client.json(request, { demand });
 * }
 * ```
 *

 * @param config Options of the writer (heartbeat interval for SSE, secrets to redact, shutdown signal).
 * @returns A method decorator (use it with `@Post()`).
 */
export function ChatJson(config?: ChatWireConfig): MethodDecorator {
  return chatWireDecorator('json', config);
}
