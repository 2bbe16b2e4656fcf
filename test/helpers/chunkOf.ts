import type { ChatCompletionChunk, ChunkChoice, ChunkDelta, ToolCallDelta, Usage } from '../../src/core/schemas/upstream';

/** Test builders for `ChatCompletionChunk`s (the shape decodeChunk emits), terse enough for marble value maps. */
export const chunkOf = {
  /** A chunk with the given choices (and top-level fields). */
  choices(choices: ChunkChoice[], top: Partial<ChatCompletionChunk> = {}): ChatCompletionChunk {
    return { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000, model: 'm', ...top, choices };
  },
  /** One choice with a delta. */
  delta(delta: ChunkDelta, index = 0, finish_reason: string | null = null): ChatCompletionChunk {
    return chunkOf.choices([{ index, delta, finish_reason }]);
  },
  /** One choice with a content delta. */
  content(content: string, index = 0): ChatCompletionChunk {
    return chunkOf.delta({ content }, index);
  },
  /** One choice with tool-call fragments. */
  tools(fragments: ToolCallDelta[], index = 0): ChatCompletionChunk {
    return chunkOf.delta({ tool_calls: fragments }, index);
  },
  /** A finishing chunk (empty delta), optionally with usage inside the choice (Moonshot) and on top (decodeChunk's lift). */
  finish(finish_reason: string, index = 0, usage?: Usage): ChatCompletionChunk {
    const choice: ChunkChoice = { index, delta: {}, finish_reason };
    if (usage !== undefined) choice.usage = usage;
    return chunkOf.choices([choice], usage === undefined ? {} : { usage });
  },
  /** The final `choices: []` usage chunk. */
  usage(usage: Usage): ChatCompletionChunk {
    return chunkOf.choices([], { usage });
  },
};
