import { rawRequest, type RawResponse } from './rawRequest';

/**
 * A healthy `POST /chat/sse` (the emulator's 40 tokens paced at 50 ms, 20 s timeout) with `headers`: under load, the
 * gaps between its pieces (`largestPieceGap`) show whether the server kept serving it.
 */
export function pacedSseRequest(url: string, headers: Record<string, string>): Promise<RawResponse> {
  return rawRequest(`${url}/chat/sse`, {
    body: { model: 'deepseek-chat#pace=50;tokens=40', messages: [{ role: 'user', content: 'hi' }] },
    headers,
    signal: AbortSignal.timeout(20_000),
  });
}
