/**
 * `chatflux/nestjs`: the module, its controller, the decorators, interceptor, filter and pipe.
 *
 * This folder follows Nest's own file convention (as `@nestjs/throttler` does: `chatflux.module.ts`,
 * `chatflux.controller.ts`, `chatflux.decorators.ts`, `chatflux.interceptor.ts`, `chatflux.filter.ts`,
 * `chatflux.pipe.ts`, `chatflux.constants.ts`, `chatflux.providers.ts`, `chatflux.interfaces.ts`,
 * `chatflux.shutdown.ts`, `chatflux.utilities.ts`): here the house rule "one export per file, named after it" yields
 * to it, so that a Nest developer finds each piece where Nest puts it. The serving itself is not here: the module's
 * routes call the node endpoints (`createChatEndpoints`, on the serving core of `src/serve/`), as Express's `chatRouter` does.
 * Re-exports only. For NestJS 10, 11 and 12, on the Express and Fastify platforms.
 * @packageDocumentation
 * @module chatflux/nestjs
 */
export { CHATFLUX_CLIENT, CHATFLUX_MODULE_CONFIG } from './chatflux.constants.js';
export { ChatfluxModule } from './chatflux.module.js';
export type {
  ChatfluxModuleConfig,
  ChatfluxRoutesConfig,
  ChatfluxModuleAsyncConfig,
  ChatWireConfig,
} from './chatflux.interfaces.js';
export { ChatJson, ChatNdjson, ChatSse, Demand } from './chatflux.decorators.js';
export { ChatfluxExceptionFilter } from './chatflux.filter.js';
export { ZodValidationPipe } from './chatflux.pipe.js';
