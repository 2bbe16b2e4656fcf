/**
 * Every chatflux operator, as `chatflux/operators` (like `rxjs/operators`). Re-exports only.
 * @packageDocumentation
 * @module chatflux/operators
 */
export { parseSse, type ParseSseConfig } from './parseSse.js';
export { decodeChunk, type DecodeChunkConfig } from './decodeChunk.js';
export { accumulateDeltas, type AccumulateDeltasConfig } from './accumulateDeltas.js';
export { DEFAULT_MAX_ANSWER_CHARS } from './defaultMaxAnswerChars.js';
export { assembleToolCalls } from './assembleToolCalls.js';
export type { AssembleToolCallsConfig } from './AssembleToolCallsConfig.js';
export type { AssembledToolCall } from './AssembledToolCall.js';
export { toOutputChunks, type ToOutputChunksConfig } from './toOutputChunks.js';
export { toOutput, type ToOutputConfig } from './toOutput.js';
export { toChatCompletionChunks, type ToChatCompletionChunksConfig } from './toChatCompletionChunks.js';
export { toChatCompletion } from './toChatCompletion.js';
export { toAnthropicEvents, type ToAnthropicEventsConfig } from './toAnthropicEvents.js';
export { toAnthropicMessage, type ToAnthropicMessageConfig } from './toAnthropicMessage.js';
export type { AnthropicEvent, AnthropicMessage, AnthropicContentBlock } from './AnthropicEvent.js';
export type { RouteExtensions } from './routeExtensions.js';
export type { AnthropicUsage } from './toAnthropicUsage.js';
export { toUiMessageStream, type ToUiMessageStreamConfig } from './toUiMessageStream.js';
export type { UiMessageChunk, UiMessageFinishMetadata } from './UiMessageChunk.js';
export { toNdjson, type ToNdjsonConfig } from '../wire/toNdjson.js';
export { toSse, type ToSseConfig } from '../wire/toSse.js';
export { retryOnTransient, type RetryOnTransientConfig, type RetryEvent } from './retryOnTransient.js';
export { chunkTimeouts, type ChunkTimeoutsConfig } from './chunkTimeouts.js';
export { failover, type FailoverTarget, type FailoverConfig, type FailoverAttempt } from './failover.js';
export {
  continueAfterCut,
  type ContinueAfterCutConfig,
  type ContinuationRequest,
  type ContinuationSegment,
} from './continueAfterCut.js';
export { isCutError } from './isCutError.js';
export { verifyContinuation, type VerifyContinuationConfig } from './verifyContinuation.js';
