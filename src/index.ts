/**
 * chatflux — RxJS 7 operators for LLM chat-completion streams, and the sources, client and contracts around them.
 *
 * Adapters and the testing kit live on subpaths: `chatflux/node`, `chatflux/express`, `chatflux/nestjs`,
 * `chatflux/testing`. Re-exports only.
 * @packageDocumentation
 * @module chatflux
 */
export * from './operators/index.js';
export { deltaContent } from './operators/deltaContent.js';
export { deltaReasoning } from './operators/deltaReasoning.js';
export { fromBody, type FromBodyConfig } from './source/fromBody.js';
export type { BodySource } from './source/createBodyReader.js';
export { requestCompletion, type RequestCompletionConfig } from './source/requestCompletion.js';
export { createDemandGate, type DemandGate } from './core/createDemandGate.js';
export type { DemandGateConfig } from './core/DemandGateConfig.js';
export {
  createChatClient,
  type ChatClient,
  type ChatClientConfig,
  type ChatCallOptions,
  type ChatClientRequest,
} from './client/createChatClient.js';
export { traceCompletion, type TraceCompletionConfig } from './telemetry/traceCompletion.js';
export { createCompletionTelemetry } from './telemetry/createCompletionTelemetry.js';
export { GEN_AI_METRICS, type GenAiHistogram } from './telemetry/GEN_AI_METRICS.js';
export type { TelemetryConfig } from './telemetry/TelemetryConfig.js';
export type { CompletionDescription } from './telemetry/CompletionDescription.js';
export type { CompletionCall } from './telemetry/CompletionCall.js';
export type { CompletionTelemetry } from './telemetry/CompletionTelemetry.js';
export { DEFAULT_TIMEOUTS, type TimeoutsConfig } from './source/defaultTimeouts.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './core/retryPolicy.js';
export { PROVIDERS, type ProviderName, type ProviderPreset } from './client/providers.js';
export { serverSentEvent } from './core/serverSentEvent.js';
export { parseChatRequest } from './core/parseChatRequest.js';
export type { ParseChatRequestConfig } from './core/ParseChatRequestConfig.js';
export { applyRequestPolicy } from './core/applyRequestPolicy.js';
export { checkRequestPolicy } from './core/checkRequestPolicy.js';
export type { RequestPolicyConfig } from './core/RequestPolicyConfig.js';
export { checkRequestBounds } from './core/checkRequestBounds.js';
export { DEFAULT_REQUEST_LIMITS, type RequestLimitsConfig } from './core/requestLimits.js';
export { toErrorResponse, type ErrorResponse, type ToErrorResponseConfig } from './core/toErrorResponse.js';
export * from './core/errors.js';
export * from './core/schemas/index.js';
export type { SseEvent, Mono, Flux, ServerSentEvent } from './core/types.js';
export {
  createChatRoute,
  type ChatRoute,
  type ChatRouteConfig,
  type ChatRouteTarget,
  type ChatRouteEvent,
  type ChatRouteAttemptEvent,
  type ChatRouteBreakerEvent,
} from './client/createChatRoute.js';
export { routeByModel } from './client/routeByModel.js';
export {
  createCircuitBreaker,
  DEFAULT_CIRCUIT_BREAKER,
  type CircuitBreaker,
  type CircuitBreakerConfig,
  type CircuitState,
  type CircuitTransition,
} from './client/createCircuitBreaker.js';
export { withPrefill, type PrefillDialect } from './client/withPrefill.js';
export { isTargetFault } from './client/isTargetFault.js';
export { nextRouteTarget, type NextRouteTargetRules } from './client/nextRouteTarget.js';
export { describeRouteError, type RouteErrorDescription } from './client/describeRouteError.js';
export { isContextLengthError } from './core/isContextLengthError.js';
export { isContentPolicyError } from './core/isContentPolicyError.js';
export { addUsage } from './core/addUsage.js';
export type { StreamLog } from './store/StreamLog.js';
export type { StreamLogConfig } from './store/StreamLogConfig.js';
export type { StreamLogHealth } from './store/StreamLogHealth.js';
export type { StreamLogRecord } from './store/StreamLogRecord.js';
export type { StreamLogStats } from './store/StreamLogStats.js';
export type { StreamMeta, StreamMetaInit } from './store/StreamMeta.js';
export type { StreamOpenConfig } from './store/StreamOpenConfig.js';
export type { StreamOutcome, StreamOutcomeKind } from './store/StreamOutcome.js';
export type { StreamProducer, StreamStopReason } from './store/StreamProducer.js';
export type { StreamReadConfig } from './store/StreamReadConfig.js';
export { createMemoryStreamLog } from './store/createMemoryStreamLog.js';
export type { MemoryStreamLogConfig } from './store/MemoryStreamLogConfig.js';
