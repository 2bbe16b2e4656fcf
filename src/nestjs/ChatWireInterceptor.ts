import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { catchError, defer, map, switchMap, throwError, type Observable } from 'rxjs';
import type { WriteResponseConfig } from '../node/index.js';
import { ShutdownError } from '../core/errors.js';
import type { ChatfluxShutdown } from './ChatfluxShutdown.js';
import type { ChatWireConfig } from './ChatWireConfig.js';
import type { ChatWireFormat } from './ChatWireFormat.js';
import { rawResponse } from './rawResponse.js';
import { readJsonBody } from './readJsonBody.js';
import { requestDemandGate } from './requestDemandGate.js';
import { toChatfluxError } from './toChatfluxError.js';
import { writeChatWire } from './writeChatWire.js';

/**
 * The interceptor behind `@ChatJson()`, `@ChatNdjson()` and `@ChatSse()`: it writes what the handler returns
 * (a `Mono`/`Flux`, a promise or a value) onto the raw node response with the writers of `chatflux/node`.
 *
 * 1. The writer subscribes to the handler's Observable, pauses the request's demand gate (the one `@Demand()`
 *    injects) while the socket is full, unsubscribes on disconnect, and writes heartbeats (SSE).
 * 2. An error before the first byte (a pipe's validation error, the handler's throw or rejection, an
 *    `HttpException`, the upstream's refusal) gets a real status and the format's error body; after it, an in-band
 *    error frame. Nest's exceptions and body-parser errors are mapped as `ChatfluxExceptionFilter` maps them.
 * 3. A JSON body nobody parsed yet (an app created with `bodyParser: false`) is parsed before the pipes run, with
 *    the Express router's parser and `config.bodyLimit`.
 * 4. With `ChatfluxModule` imported, its shutdown applies: a request arriving while the app closes gets a 503
 *    `shutting_down`, a response in flight gets the grace period, then the in-band `shutting_down` frame.
 * 5. The returned Observable emits once the response is over, so that Nest's request handling completes; the
 *    decorators mark the response as handled, so Nest sends nothing itself.
 */
export class ChatWireInterceptor implements NestInterceptor {
  private readonly writeConfig: WriteResponseConfig;
  private readonly bodyLimit: number | string;

  /**
   * @param format Which wire to write.
   * @param config Options of the writer (heartbeat interval, secrets, …).
   * @param shutdown The shutdown of `ChatfluxModule`, when the decorators find one (injected).
   */
  constructor(
    private readonly format: ChatWireFormat,
    config: ChatWireConfig = {},
    private readonly shutdown?: ChatfluxShutdown,
  ) {
    const { bodyLimit = '1mb', ...writeConfig } = config;
    const signal = shutdown?.with(config.signal) ?? config.signal;
    this.writeConfig = signal === undefined ? writeConfig : { ...writeConfig, signal };
    this.bodyLimit = bodyLimit;
  }

  /** Hands the handler's result to the node writer; emits `undefined` when the response has ended. */
  intercept(context: ExecutionContext, next: CallHandler): Observable<undefined> {
    const http = context.switchToHttp();
    const req = http.getRequest<{ body?: unknown; raw?: unknown }>();
    const res = rawResponse(http.getResponse());
    const demand = requestDemandGate(req);
    return defer(() => {
      const draining = this.shutdown?.isDraining === true;
      if (draining) res.setHeader('Connection', 'close');
      // Pipes (`@Body()`) run inside `next.handle()`: a body nobody parsed yet is parsed first.
      const handled = defer(() => readJsonBody(req, res, this.bodyLimit)).pipe(switchMap(() => next.handle()));
      const output = draining
        ? throwError(() => new ShutdownError())
        : handled.pipe(catchError((error: unknown) => throwError(() => toChatfluxError(error))));
      const written = writeChatWire(this.format, res, output, { ...this.writeConfig, demand });
      return this.shutdown?.track(written) ?? written;
    }).pipe(map(() => undefined));
  }
}
