/**
 * `chatflux/express`: the chat router (the three endpoints) for Express 4 and 5, and the writers. Re-exports only.
 * @packageDocumentation
 * @module chatflux/express
 */
export { chatRouter, type ChatEndpoint, type ChatRequestLog, type ChatRouter, type ChatRouterConfig } from './chatRouter.js';
export { sendJson, sendNdjson, sendSse, type SendJsonConfig, type SendNdjsonConfig, type SendSseConfig, type WriteOutcome, type ResumableConfig, STREAM_HEADERS } from '../node/index.js';
