import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { catchError, defer, map, switchMap, tap, throwError, type Observable } from 'rxjs';
import { ShutdownError } from '../core/errors.js';
import { CHAT_WIRES, type ChatWireFormat } from '../node/CHAT_WIRES.js';
import { readJsonBody } from '../node/readJsonBody.js';
import { parseByteLimit } from '../serve/parseByteLimit.js';
import type { WriteResponseConfig } from '../node/writeResponse.js';
import { toChatfluxError } from './chatflux.filter.js';
import type { ChatWireConfig } from './chatflux.interfaces.js';
import type { ChatfluxShutdown } from './chatflux.shutdown.js';
import { nodeRequest, rawResponse, requestDemandGate } from './chatflux.utilities.js';

/**
 * The interceptor behind `@ChatJson()`, `@ChatNdjson()` and `@ChatSse()`: it writes what the handler returns
 * (a `Mono`/`Flux`, a promise or a value) onto the raw node response with the wire's writer (`CHAT_WIRES`, the
 * writers of `chatflux/node`).
 *
 * 1. The writer subscribes to the handler's Observable, pauses the request's demand gate (the one `@Demand()`
 *    injects) while the socket is full, unsubscribes on disconnect, and writes heartbeats (SSE).
 * 2. An error before the first byte (a pipe's validation error, the handler's throw or rejection, an
 *    `HttpException`, the upstream's refusal) gets a real status and the format's error body; after it, an in-band
 *    error frame. Nest's exceptions and the JSON parser's errors are mapped as `ChatfluxExceptionFilter` maps them.
 * 3. A JSON body nobody parsed yet (an app created with `bodyParser: false`) is parsed before the pipes run, with
 *    the Express router's parser (`readJsonBody`) and `config.bodyLimit`.
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
   * @throws ConfigError when `config.bodyLimit` is not a limit (`parseByteLimit`: bytes, or a string such as `'1mb'`).
   */
  constructor(
    private readonly format: ChatWireFormat,
    config: ChatWireConfig = {},
    private readonly shutdown?: ChatfluxShutdown,
  ) {
    const { bodyLimit = '1mb', ...writeConfig } = config;
    parseByteLimit(bodyLimit); // a wrong limit is a ConfigError here, not a request's 500
    const signal = shutdown?.with(config.signal) ?? config.signal;
    this.writeConfig = signal === undefined ? writeConfig : { ...writeConfig, signal };
    this.bodyLimit = bodyLimit;
  }

  /** Hands the handler's result to the node writer; emits `undefined` when the response has ended. */
  intercept(context: ExecutionContext, next: CallHandler): Observable<undefined> {
    const http = context.switchToHttp();
    const request = http.getRequest<unknown>();
    const res = rawResponse(http.getResponse());
    const demand = requestDemandGate(request);
    return defer(() => {
      const draining = this.shutdown?.isDraining === true;
      if (draining) res.setHeader('Connection', 'close');
      const { req, platform } = nodeRequest(request);
      // Pipes (`@Body()`) run inside `next.handle()`: a body nobody parsed yet is parsed first. The heartbeat waits for
      // it: one written while the body still arrives would commit the 200, and its refusal would go in-band under it.
      let bodyRead: () => void = () => undefined;
      const heartbeatAfter = new Promise<void>((resolve) => (bodyRead = resolve));
      const handled = defer(() => readJsonBody(req, this.bodyLimit, platform)).pipe(
        tap(() => bodyRead()),
        switchMap(() => next.handle()),
      );
      const output = draining
        ? throwError(() => new ShutdownError())
        : handled.pipe(catchError((error: unknown) => throwError(() => toChatfluxError(error))));
      const written = CHAT_WIRES[this.format].send(res, output, { ...this.writeConfig, demand, heartbeatAfter });
      return this.shutdown?.track(written) ?? written;
    }).pipe(map(() => undefined));
  }
}
