import type { ChatCompletionChunk } from '../core/schemas/upstream.js';

/** The identity of a streamed answer: the first non-empty `id`, `model`, `created` and `system_fingerprint`. */
export interface ChunkIdentity {
  /** Notes a chunk's identity fields; only the first non-empty value of each is kept. O(1). */
  note(chunk: ChatCompletionChunk): void;
  /** The first non-empty `id`, `undefined` until one came. */
  readonly id: string | undefined;
  /** The first non-empty `model`. */
  readonly model: string | undefined;
  /** The first positive `created`. */
  readonly created: number | undefined;
  /** The first non-empty `system_fingerprint`. */
  readonly fingerprint: string | undefined;
}

/**
 * Creates a {@link ChunkIdentity}: the one rule by which every output (`accumulateDeltas`, `toOutput`,
 * `toOutputChunks`) names the answer. Empty values do not count — Azure opens with a `prompt_filter_results` chunk of
 * `id: ""`, `model: ""`, `created: 0` — and the first real value wins, because several hosts (Groq, xAI, Perplexity,
 * llama.cpp) change `created`, and some even `id`, mid-stream.
 */
export function createChunkIdentity(): ChunkIdentity {
  // Plain data properties (read on every snapshot), written by note().
  const identity = {
    id: undefined as string | undefined,
    model: undefined as string | undefined,
    created: undefined as number | undefined,
    fingerprint: undefined as string | undefined,
    note(chunk: ChatCompletionChunk): void {
      if (identity.id === undefined && typeof chunk.id === 'string' && chunk.id !== '') identity.id = chunk.id;
      if (identity.model === undefined && typeof chunk.model === 'string' && chunk.model !== '')
        identity.model = chunk.model;
      if (identity.created === undefined && typeof chunk.created === 'number' && chunk.created > 0)
        identity.created = chunk.created;
      const print = chunk.system_fingerprint;
      if (identity.fingerprint === undefined && typeof print === 'string' && print !== '') identity.fingerprint = print;
    },
  };
  return identity;
}
