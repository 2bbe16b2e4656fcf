import { rawRequest } from './rawRequest';

/** A long `POST /chat/sse` answer in flight: see {@link holdSseStream}. */
export interface HeldSseStream {
  /** Aborts the request and resolves once it settled. */
  end(): Promise<void>;
}

/**
 * Starts a long SSE answer (`POST /chat/sse`, 200 tokens paced at 50 ms) with `headers`, and resolves once its first
 * piece came: its client has one request running until `end()` (for per-client limit tests).
 */
export async function holdSseStream(url: string, headers: Record<string, string>): Promise<HeldSseStream> {
  const controller = new AbortController();
  let first!: () => void;
  const streaming = new Promise<void>((resolve) => (first = resolve));
  const long = rawRequest(`${url}/chat/sse`, {
    body: { model: 'deepseek-chat#pace=50;tokens=200', messages: [{ role: 'user', content: 'long' }] },
    headers,
    signal: controller.signal,
    onPiece: () => first(),
  });
  await streaming;
  return {
    end: async () => {
      controller.abort();
      await long;
    },
  };
}
