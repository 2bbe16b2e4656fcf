/**
 * chatflux — RxJS 7 operators for LLM chat-completion streams, and the sources, client and contracts around them.
 *
 * Adapters and the testing kit live on subpaths: `chatflux/node`, `chatflux/express`, `chatflux/nestjs`,
 * `chatflux/testing`. Re-exports only.
 * @packageDocumentation
 */
export * from './operators/index.js';
export { fromBody, type FromBodyConfig } from './source/fromBody.js';
export type { BodySource } from './internal/createBodyReader.js';
export { requestCompletion, type RequestCompletionConfig } from './source/requestCompletion.js';
export { createDemandGate, type DemandGate } from './source/createDemandGate.js';
export {
  createChatClient,
  type ChatClient,
  type ChatClientConfig,
  type ChatCallOptions,
  type ChatClientRequest,
} from './client/createChatClient.js';
export { DEFAULT_TIMEOUTS, type TimeoutsConfig } from './client/defaultTimeouts.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './internal/retryPolicy.js';
export { PROVIDERS, type ProviderName, type ProviderPreset } from './client/providers.js';
export { serverSentEvent } from './serverSentEvent.js';
export { parseChatRequest } from './parseChatRequest.js';
export { toErrorResponse, type ErrorResponse, type ToErrorResponseConfig } from './errorResponse.js';
export * from './errors.js';
export * from './schemas/index.js';
export type { SseEvent, Mono, Flux, ServerSentEvent } from './types.js';
