/**
 * chatflux — RxJS 7 operators for LLM chat-completion streams, and the sources, client and contracts around them.
 *
 * Adapters and the testing kit live on subpaths: `chatflux/node`, `chatflux/express`, `chatflux/nestjs`,
 * `chatflux/web`, `chatflux/testing`; the types they share are here. The operators are also `chatflux/operators` (as
 * rxjs's are `rxjs/operators`). Re-exports only.
 * @packageDocumentation
 * @module chatflux
 */
export * from './operators/index.js';
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
export type { TelemetryConfig } from './telemetry/TelemetryConfig.js';
export type { CompletionDescription } from './telemetry/CompletionDescription.js';
export { DEFAULT_TIMEOUTS, type TimeoutsConfig } from './source/defaultTimeouts.js';
export { DEFAULT_POOL } from './client/DEFAULT_POOL.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './core/retryPolicy.js';
export { PROVIDERS, type ProviderName, type ProviderPreset } from './client/providers.js';
export { serverSentEvent } from './core/serverSentEvent.js';
export { parseChatRequest } from './core/parseChatRequest.js';
export { fromAnthropicRequest, type FromAnthropicRequestConfig } from './core/fromAnthropicRequest.js';
export { fromUiChatRequest } from './core/fromUiChatRequest.js';
export type { ParseChatRequestConfig } from './core/ParseChatRequestConfig.js';
export type { RequestPolicyConfig } from './core/RequestPolicyConfig.js';
export { DEFAULT_REQUEST_LIMITS, type RequestLimitsConfig } from './core/requestLimits.js';
export { toErrorResponse, type ErrorResponse, type ToErrorResponseConfig } from './core/toErrorResponse.js';
export * from './core/errors.js';
// The zod schemas a user validates with (a request body, an upstream chunk, what the endpoints answer); every other
// shape is a type only.
export { ChatRequest, ChatCompletionChunk, LlmClientOutput, LlmClientOutputChunk, ErrorBody } from './core/schemas/index.js';
export type {
  Usage,
  ToolCallDelta,
  ContentPart,
  ChunkDelta,
  ChunkChoice,
  ToolCall,
  CompletionMessage,
  CompletionChoice,
  ChatCompletion,
  ToolDefinition,
  MessageContent,
  UpstreamMessage,
  ChatRequestOptions,
  ChatCompletionRequest,
  ChatMessage,
  OutputMessage,
  RouteAttempt,
} from './core/schemas/index.js';
export type { SseEvent, Mono, Flux, ServerSentEvent } from './core/types.js';
// Types the adapters share (each adapter entry exports only its own names).
export type { WireFormat } from './wire/WireFormat.js';
export type { ChatWireFormat } from './serve/SERVING_WIRES.js';
export type { WriteOutcome } from './serve/WriteOutcome.js';
export type { ChatEndpoint, ChatRequestLog } from './serve/ChatRequestLog.js';
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
  DEFAULT_CIRCUIT_BREAKER,
  type CircuitBreakerConfig,
  type CircuitState,
  type CircuitTransition,
} from './client/createCircuitBreaker.js';
export type { PrefillDialect } from './client/withPrefill.js';
// The tool loop (src/tools/): runTools, its tools, events and their faces on the wires.
export { runTools } from './tools/runTools.js';
export type { RunToolsConfig } from './tools/RunToolsConfig.js';
export { defineTool } from './tools/defineTool.js';
export type { RunnableTool, ToolContext } from './tools/RunnableTool.js';
export type {
  ToolLoopEvent,
  ToolLoopCall,
  ToolLoopStep,
  ToolLoopStopReason,
  ToolLoopStepStartEvent,
  ToolLoopTextEvent,
  ToolLoopReasoningEvent,
  ToolLoopToolCallDeltaEvent,
  ToolLoopToolCallEvent,
  ToolLoopToolResultEvent,
  ToolLoopStepFinishEvent,
  ToolLoopFinishEvent,
} from './tools/ToolLoopEvent.js';
export { toToolLoopOutput } from './tools/toToolLoopOutput.js';
export { toToolLoopMessages } from './tools/toToolLoopMessages.js';
export { toToolLoopChunks } from './tools/toToolLoopChunks.js';
export type { ToolResultFrame } from './core/schemas/index.js';
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
export type { ResumableConfig } from './serve/ResumableConfig.js';
export type { RateLimitRule, RateLimitAdmission, RateLimitDecision, RateLimitQuotaLeft, RateLimitSettlement, RateLimitStore } from './store/RateLimitStore.js';
export { createMemoryRateLimitStore, type MemoryRateLimitStore } from './store/createMemoryRateLimitStore.js';
export type { BreakerStore, SharedBreakerState } from './store/BreakerStore.js';
export { createMemoryBreakerStore } from './store/createMemoryBreakerStore.js';
export type {
  RateLimitClientRule,
  RateLimitSettleEvent,
  RateLimitTokenWeights,
  RateLimitsConfig,
  RateLimitStoreEvent,
  RateLimitStoreFailurePolicy,
} from './serve/RateLimitsConfig.js';
export { RATE_LIMIT_DEFAULTS } from './serve/RATE_LIMIT_DEFAULTS.js';
export { STREAM_HEADERS } from './serve/STREAM_HEADERS.js';
export type { MemoryStreamLogConfig } from './store/MemoryStreamLogConfig.js';
