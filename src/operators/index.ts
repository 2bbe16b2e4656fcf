/** Every chatflux operator, as `chatflux/operators` (like `rxjs/operators`). Re-exports only. */
export { parseSse, type ParseSseConfig } from './parseSse.js';
export { decodeChunk, type DecodeChunkConfig } from './decodeChunk.js';
export { accumulateDeltas } from './accumulateDeltas.js';
export { assembleToolCalls, type AssembleToolCallsConfig, type AssembledToolCall } from './assembleToolCalls.js';
export { toOutputChunks, type ToOutputChunksConfig } from './toOutputChunks.js';
export { toOutput, type ToOutputConfig } from './toOutput.js';
export { toNdjson, type ToNdjsonConfig } from './toNdjson.js';
export { toSse, type ToSseConfig } from './toSse.js';
export { retryOnTransient, type RetryOnTransientConfig, type RetryEvent } from './retryOnTransient.js';
export { chunkTimeouts, type ChunkTimeoutsConfig } from './chunkTimeouts.js';
