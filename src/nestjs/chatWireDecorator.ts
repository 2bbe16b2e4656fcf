import { applyDecorators, HttpCode, Inject, Injectable, Optional, Res, SetMetadata, UseFilters, UseInterceptors } from '@nestjs/common';
import { throwError } from 'rxjs';
import { CHAT_ROUTE, type ChatRoute } from './CHAT_ROUTE.js';
import { ChatfluxExceptionFilter } from './ChatfluxExceptionFilter.js';
import { ChatfluxShutdown } from './ChatfluxShutdown.js';
import type { ChatWireConfig } from './ChatWireConfig.js';
import type { ChatWireFormat } from './ChatWireFormat.js';
import { ChatWireInterceptor } from './ChatWireInterceptor.js';
import { toChatfluxError } from './toChatfluxError.js';
import { writeChatWire } from './writeChatWire.js';

// Nest's metadata keys (`@nestjs/common/constants`), spelled out: a deep import does not resolve from ESM.
const ROUTE_ARGS_METADATA = '__routeArguments__';
const RESPONSE_PASSTHROUGH_METADATA = '__responsePassthrough__';

/**
 * Marks the response of a handler as written by chatflux, as `@Res()` without passthrough does: Nest then sends
 * nothing itself after the handler. It appends a `@Res()` parameter after the declared ones (the handler receives
 * one argument more, which it ignores). Parameter decorators run before method decorators, so the declared
 * parameters are known here.
 */
const responseHandledByChatflux =
  (): MethodDecorator =>
  (target: object, key: string | symbol, descriptor: PropertyDescriptor): void => {
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, target.constructor, key) ?? {}) as Record<string, { index: number }>;
    const declared = typeof descriptor.value === 'function' ? (descriptor.value as (...a: unknown[]) => unknown).length : 0;
    const index = Math.max(declared, ...Object.values(args).map((arg) => arg.index + 1));
    Res()(target, key, index);
    Reflect.defineMetadata(RESPONSE_PASSTHROUGH_METADATA, false, target.constructor, key);
  };

/** The decorators behind `@ChatJson()`, `@ChatNdjson()`, `@ChatSse()`. */
export function chatWireDecorator(format: ChatWireFormat, config: ChatWireConfig = {}): MethodDecorator {
  const secrets = config.secrets === undefined ? {} : { secrets: config.secrets };
  /** This handler's interceptor, built by Nest so that it gets the module's shutdown when `ChatfluxModule` is imported. */
  @Injectable()
  class ChatWireInterceptorOfHandler extends ChatWireInterceptor {
    constructor(@Optional() @Inject(ChatfluxShutdown) shutdown?: ChatfluxShutdown) {
      super(format, config, shutdown);
    }
  }
  const route: ChatRoute = {
    answerBodyError: (_request, response, error) =>
      void writeChatWire(format, response, throwError(() => toChatfluxError(error)), { ...secrets, heartbeatMs: 0 }),
  };
  return applyDecorators(
    HttpCode(200),
    UseInterceptors(ChatWireInterceptorOfHandler),
    UseFilters(new ChatfluxExceptionFilter(format, secrets)),
    SetMetadata(CHAT_ROUTE, route),
    responseHandledByChatflux(),
  );
}
