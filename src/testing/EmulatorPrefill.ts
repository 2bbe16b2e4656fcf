/**
 * Which assistant prefill an emulated provider takes as the beginning of its answer (docs/PROVIDERS.md, "Continuing a
 * cut answer"): `prefix` (DeepSeek: the last message `{role: 'assistant', prefix: true}`), `partial` (Moonshot / Kimi,
 * Qwen: `partial: true`), `assistant` (any trailing assistant message: servers that continue a prefill), `none`
 * (OpenAI's models: a trailing assistant message is history, and the model answers afresh).
 */
export type EmulatorPrefill = 'prefix' | 'partial' | 'assistant' | 'none';
