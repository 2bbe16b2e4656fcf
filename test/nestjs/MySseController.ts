import { Body, Controller, Inject, Post } from '@nestjs/common';
import type { ChatClient } from '../../src/client/createChatClient.js';
import { CHATFLUX_CLIENT, ChatSse, Demand, ZodValidationPipe } from '../../src/nestjs/index.js';
import type { DemandGate } from '../../src/core/createDemandGate.js';
import { ChatRequest } from '../../src/core/schemas/index.js';

/** A user's own controller with one `@ChatSse()` handler at `POST /my/sse` (shared by the NestJS specs). */
@Controller('my')
export class MySseController {
  constructor(@Inject(CHATFLUX_CLIENT) private readonly client: ChatClient) {}

  @Post('sse')
  @ChatSse()
  sse(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest, @Demand() demand: DemandGate) {
    return this.client.sse(request, { demand });
  }
}
