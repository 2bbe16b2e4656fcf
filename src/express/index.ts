export { chatRouter, type ChatEndpoint, type ChatRequestLog, type ChatRouter, type ChatRouterConfig } from './chatRouter.js';
export { sendJson, sendNdjson, sendSse, type SendJsonConfig, type SendNdjsonConfig, type SendSseConfig, type WriteOutcome } from '../node/index.js';
