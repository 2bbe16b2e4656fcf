/**
 * `chatflux/express`: the chat router (the three endpoints) for Express 4 and 5, and the writers. Re-exports only.
 *
 * `sendJson`, `sendNdjson` and `sendSse` (with their configs) are `chatflux/node`'s writers, offered here too because
 * the design names them on `chatflux/express` (an Express response is a `node:http` one); every other name lives on
 * one entry.
 * @packageDocumentation
 * @module chatflux/express
 */
export { chatRouter, type ChatRouter, type ChatRouterConfig } from './chatRouter.js';
export { sendJson, sendNdjson, sendSse, type SendJsonConfig, type SendNdjsonConfig, type SendSseConfig } from '../node/index.js';
