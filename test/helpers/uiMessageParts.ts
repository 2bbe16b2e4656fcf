/**
 * The UI message stream as the `ai` package reads it, written once for the tests of `POST /chat/ui` and its wire.
 */
import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from 'ai';

/** The parts of a UI message stream, each checked with `ai`'s own schema as `DefaultChatTransport` checks it. */
export async function validUiParts(sse: string): Promise<UIMessageChunk[]> {
  const parts: UIMessageChunk[] = [];
  const stream = parseJsonEventStream({ stream: new Response(sse).body!, schema: uiMessageChunkSchema });
  for await (const result of stream as unknown as AsyncIterable<{ success: boolean; value?: UIMessageChunk; error?: unknown }>) {
    expect(result).toEqual(expect.objectContaining({ success: true }));
    parts.push(result.value!);
  }
  return parts;
}

/** The last message `readUIMessageStream` (of `ai`) builds from the parts, and the error it was told of, if any. */
export async function rebuildUiMessage(parts: UIMessageChunk[]): Promise<{ message: UIMessage | undefined; error: unknown }> {
  let error: unknown;
  let message: UIMessage | undefined;
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
  for await (const snapshot of readUIMessageStream({ stream, onError: (e) => (error = e) })) message = snapshot;
  return { message, error };
}
