/**
 * `chatflux/node`: the writers that put an Observable on a `node:http` response as JSON, NDJSON or SSE. Re-exports only.
 * @packageDocumentation
 * @module chatflux/node
 */
export { sendJson, type SendJsonConfig } from './sendJson.js';
export { sendNdjson, type SendNdjsonConfig } from './sendNdjson.js';
export { sendSse, type SendSseConfig } from './sendSse.js';
export type { WireFormat } from '../wire/WireFormat.js';
export type { WriteOutcome } from './WriteOutcome.js';
export { writeResponse, type WriteResponseConfig } from './writeResponse.js';
