import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { throwError } from 'rxjs';
import type { ChatWireConfig } from './ChatWireConfig.js';
import type { ChatWireFormat } from './ChatWireFormat.js';
import { rawResponse } from './rawResponse.js';
import { toChatfluxError } from './toChatfluxError.js';
import { writeChatWire } from './writeChatWire.js';

/**
 * An exception filter answering in the contract's error format of one endpoint — for what a guard, a pipe outside
 * the chat decorators, or a handler threw. Statuses and bodies are `toErrorResponse`'s, written by the node
 * writers: chatflux errors keep their status (400, 401, 413, 429, 502, 504, …); body-parser failures and Nest's
 * `HttpException`s with 400, 401, 413 or 415 become the matching request errors; any other 4xx `HttpException`
 * (a guard's 403, a throttler's 429, a 404) and a 503 keep their status, with `type` `invalid_request_error`
 * (`rate_limit_error` for 429, `server_error` for 503) and a `code` from the status (`forbidden`, `rate_limited`,
 * `not_found`); anything else is a 500 whose message is not disclosed.
 *
 * `@ChatJson()`, `@ChatNdjson()` and `@ChatSse()` apply it; use it alone on a handler of your own.
 *
 * ## Example
 * ```ts
 * @Post('ask') @UseGuards(ApiKeyGuard) @UseFilters(new ChatfluxExceptionFilter('sse'))
 * ```
 */
@Catch()
export class ChatfluxExceptionFilter implements ExceptionFilter {
  /**
   * @param format The wire whose error format to write.
   * @param config Secrets to redact from messages.
   */
  constructor(
    private readonly format: ChatWireFormat,
    private readonly config: Pick<ChatWireConfig, 'secrets'> = {},
  ) {}

  /** Writes `exception` in the format (headers not sent yet), or ends the response (already committed). */
  catch(exception: unknown, host: ArgumentsHost): void {
    const res = rawResponse(host.switchToHttp().getResponse());
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    void writeChatWire(this.format, res, throwError(() => toChatfluxError(exception)), { ...this.config, heartbeatMs: 0 });
  }
}
