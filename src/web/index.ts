/**
 * `chatflux/web`: the three endpoints as web-standard handlers, `(request: Request) => Promise<Response>`, and
 * `toResponse(observable, wire)`, for Hono, Next.js route handlers, Bun and Deno. Re-exports only.
 * @packageDocumentation
 * @module chatflux/web
 */
export { createChatHandlers } from './createChatHandlers.js';
export type { WebChatHandlers, WebHandler } from './WebChatHandlers.js';
export type { WebChatHandlersConfig } from './WebChatHandlersConfig.js';
export { toResponse } from './toResponse.js';
export type { ToResponseConfig } from './ToResponseConfig.js';
