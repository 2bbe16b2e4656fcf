import type { Emulator } from '../../src/testing/startEmulator';
import { FULL_REQUEST } from './fullChatRequest';
import { rawRequest } from './rawRequest';
import { expectJsonAnswer, expectNdjsonAnswer, expectSseAnswer, type Endpoint } from './wireAssertions';

const ENDPOINTS: Endpoint[] = ['/chat/json', '/chat/stream', '/chat/sse'];

/**
 * Sends {@link FULL_REQUEST} (every field of the OpenAI-compatible request: `seed`, `n`, `thinking`, `tools`, a tool
 * result, `reasoning_content`, images, `prefix`, unknown fields) to the three endpoints of a server in front of
 * `emulator`, and checks that each answered and that the emulator received exactly that request — only `stream` and
 * `stream_options.include_usage` added by the client.
 */
export async function expectForwardedIntact(baseUrl: string, emulator: Emulator, label: string): Promise<void> {
  for (const endpoint of ENDPOINTS) {
    const sent = { ...structuredClone(FULL_REQUEST), user: `${label} ${endpoint}` };
    const res = await rawRequest(`${baseUrl}${endpoint}`, { body: sent });
    if (endpoint === '/chat/json') expectJsonAnswer(res);
    else if (endpoint === '/chat/stream') expectNdjsonAnswer(res);
    else expectSseAnswer(res);
    const received = await emulator.waitForRequest(
      (r) => (r.body as { user?: unknown } | undefined)?.user === sent.user,
    );
    expect(received.body).toEqual({ ...sent, stream: true, stream_options: { include_usage: true } });
  }
}
