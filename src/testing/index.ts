/**
 * `chatflux/testing`: the upstream emulator (an OpenAI-compatible SSE server speaking the Moonshot and DeepSeek
 * dialects, with fault injection) and marble helpers for users' tests.
 * @packageDocumentation
 * @module chatflux/testing
 */
export { startEmulator } from './startEmulator.js';
export type { Emulator, EmulatorConfig, EmulatorRequest } from './startEmulator.js';
export type { EmulatorRequestLogConfig } from './createRequestLog.js';
export type { EmulatorDialect } from './EmulatorDialect.js';
export type { ProviderQuirks } from './ProviderQuirks.js';
export { parseScenario } from './parseScenario.js';
export type { EmulatorScenario } from './parseScenario.js';
export type { EmulatorPrefill } from './EmulatorPrefill.js';
export { transcriptFrames } from './transcriptFrames.js';
export type { TranscriptConfig } from './transcriptFrames.js';
export { sseText } from './sseText.js';
export { sseMarbles } from './sseMarbles.js';
export type { TranscriptMarbles } from './sseMarbles.js';
export { chunkMarbles } from './chunkMarbles.js';
export { coldSse } from './coldSse.js';
export type { ColdSseConfig } from './coldSse.js';
