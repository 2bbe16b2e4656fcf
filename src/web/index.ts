export { createChatHandlers } from './createChatHandlers.js';
export type { WebChatHandlers, WebHandler } from './WebChatHandlers.js';
export type { WebChatHandlersConfig } from './WebChatHandlersConfig.js';
export { toResponse } from './toResponse.js';
export type { ToResponseConfig } from './ToResponseConfig.js';
export type { WriteOutcome } from '../node/WriteOutcome.js';
export type { WireFormat } from '../wire/WireFormat.js';
export type { ChatWireFormat } from '../node/CHAT_WIRES.js';
