export { sendJson, type SendJsonConfig } from './sendJson.js';
export { sendNdjson, type SendNdjsonConfig } from './sendNdjson.js';
export { sendSse, type SendSseConfig } from './sendSse.js';
export type { WireFormat } from '../wire/WireFormat.js';
export type { WriteOutcome } from './WriteOutcome.js';
export { writeResponse, type WriteResponseConfig } from './writeResponse.js';
export {
  createConcurrencyLimiter,
  type ConcurrencyLimiter,
  type ConcurrencyLimiterConfig,
} from './createConcurrencyLimiter.js';
export { clientKeyOf } from './clientKeyOf.js';
