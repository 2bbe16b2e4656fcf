import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { defer, map, type Observable } from 'rxjs';
import type { ChatWireConfig } from './ChatWireConfig.js';
import type { ChatWireFormat } from './ChatWireFormat.js';
import { rawResponse } from './rawResponse.js';
import { requestDemandGate } from './requestDemandGate.js';
import { writeChatWire } from './writeChatWire.js';

/**
 * The interceptor behind `@ChatJson()`, `@ChatNdjson()` and `@ChatSse()`: it writes what the handler returns
 * (a `Mono`/`Flux`, a promise or a value) onto the raw node response with the writers of `chatflux/node`.
 *
 * 1. The writer subscribes to the handler's Observable, pauses the request's demand gate (the one `@Demand()`
 *    injects) while the socket is full, unsubscribes on disconnect, and writes heartbeats (SSE).
 * 2. An error before the first byte (a pipe's validation error, the handler's throw, the upstream's refusal) gets a
 *    real status and the format's error body; after it, an in-band error frame.
 * 3. The returned Observable emits once the response is over, so that Nest's request handling completes; the
 *    decorators mark the response as handled, so Nest sends nothing itself.
 */
export class ChatWireInterceptor implements NestInterceptor {
  /**
   * @param format Which wire to write.
   * @param config Options of the writer (heartbeat interval, secrets, …).
   */
  constructor(
    private readonly format: ChatWireFormat,
    private readonly config: ChatWireConfig = {},
  ) {}

  /** Hands the handler's result to the node writer; emits `undefined` when the response has ended. */
  intercept(context: ExecutionContext, next: CallHandler): Observable<undefined> {
    const http = context.switchToHttp();
    const res = rawResponse(http.getResponse());
    const demand = requestDemandGate(http.getRequest());
    return defer(() => writeChatWire(this.format, res, next.handle(), { ...this.config, demand })).pipe(map(() => undefined));
  }
}
