import { Body, Controller, Inject, Post } from '@nestjs/common';
import { filter, map } from 'rxjs';
import type { ChatClient } from '../../src/client/createChatClient.js';
import { CHATFLUX_CLIENT, ChatJson, ChatNdjson, ChatSse, Demand, ZodValidationPipe } from '../../src/nestjs/index.js';
import type { DemandGate } from '../../src/core/createDemandGate.js';
import { ChatRequest } from '../../src/core/schemas/index.js';

/**
 * A controller of your own: return the client's Mono/Flux (or a pipeline built on it) and let the decorators put
 * it on the wire. `@Inject(CHATFLUX_CLIENT)` is explicit so that the example also runs under tsx/esbuild, which
 * emit no decorator metadata.
 */
@Controller('assistant')
export class ChatController {
  constructor(@Inject(CHATFLUX_CLIENT) private readonly client: ChatClient) {}

  /** The whole answer as one JSON object. */
  @Post('answer')
  @ChatJson()
  answer(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
    return this.client.json(request, { demand });
  }

  /** Token by token as SSE, heartbeats every 10 s of silence. */
  @Post('ask')
  @ChatSse({ heartbeatMs: 10_000 })
  ask(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
    return this.client.sse(request, { demand });
  }

  /** Your own pipeline: only the text, no blank pieces, as NDJSON lines `{"text":"…"}`. */
  @Post('text')
  @ChatNdjson()
  text(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
    return this.client.stream(request, { demand }).pipe(
      filter((chunk) => chunk.message.content !== ''),
      map((chunk) => ({ text: chunk.message.content })),
    );
  }
}
