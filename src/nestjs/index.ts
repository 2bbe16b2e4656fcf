/**
 * `chatflux/nestjs`: the module, decorators, interceptor, filter and pipe for NestJS 10 to 12. Re-exports only.
 * @packageDocumentation
 * @module chatflux/nestjs
 */
export { CHATFLUX_CLIENT } from './CHATFLUX_CLIENT.js';
export { CHATFLUX_MODULE_CONFIG } from './CHATFLUX_MODULE_CONFIG.js';
export { ChatfluxModule } from './ChatfluxModule.js';
export type { ChatfluxModuleConfig, ChatfluxRoutesConfig } from './ChatfluxModuleConfig.js';
export type { ChatWireConfig } from './ChatWireConfig.js';
export type { ChatfluxModuleAsyncConfig } from './ChatfluxModuleAsyncConfig.js';
export { createChatController } from './createChatController.js';
export { ChatJson } from './ChatJson.js';
export { ChatNdjson } from './ChatNdjson.js';
export { ChatSse } from './ChatSse.js';
export { Demand } from './Demand.js';
export { ChatWireInterceptor } from './ChatWireInterceptor.js';
export { ChatfluxExceptionFilter } from './ChatfluxExceptionFilter.js';
export { ChatfluxShutdown } from './ChatfluxShutdown.js';
export { ZodValidationPipe } from './ZodValidationPipe.js';
export type { ChatWireFormat } from './ChatWireFormat.js';
export type { ChatClient } from '../client/createChatClient.js';
export type { DemandGate } from '../core/createDemandGate.js';
