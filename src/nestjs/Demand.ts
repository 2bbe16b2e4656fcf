import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { requestDemandGate } from './requestDemandGate.js';

/**
 * Injects the request's {@link DemandGate}: pass it to the client (`client.sse(request, { demand })`, or
 * `requestCompletion(…, { demand })` in a pipeline of your own) and the writer of `@ChatJson()`, `@ChatNdjson()` or
 * `@ChatSse()` pauses the upstream read while the client is slow. Without it the writer still works, but a fast
 * upstream fills the socket buffer of a slow client.
 *
 * ## Example
 * ```ts
 * @Post('ask') @ChatSse()
 * ask(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
 *   return this.client.sse(request, { demand });
 * }
 * ```
 */
export const Demand = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  requestDemandGate(context.switchToHttp().getRequest()),
);
