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
export { planAnswer } from './planAnswer.js';
export type { AnswerPlan, PlannedChoice, PlannedToolCall, PlanAnswerConfig } from './planAnswer.js';
export { dialectFrames } from './dialectFrames.js';
export type { DialectFramesConfig } from './dialectFrames.js';
export { dialectCompletion } from './dialectCompletion.js';
export { dialectError } from './dialectError.js';
export type { DialectErrorConfig, DialectErrorResponse } from './dialectError.js';
export { transcriptFrames } from './transcriptFrames.js';
export type { TranscriptConfig } from './transcriptFrames.js';
export { sseText } from './sseText.js';
export { sseMarbles } from './sseMarbles.js';
export type { TranscriptMarbles } from './sseMarbles.js';
export { chunkMarbles } from './chunkMarbles.js';
export { coldSse } from './coldSse.js';
export { continuePlan } from './continuePlan.js';
export type { ColdSseConfig } from './coldSse.js';
