/**
 * The built-in emulator behind `npm start` keeps no request log: before, it kept every body and header for ever
 * (heap 18 → 212 MB after 200 requests of 1 MB; about 4000 such requests killed a default gateway).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../src/startGateway';
import { rawRequest } from '../../test/helpers/rawRequest';
import { expectJsonAnswer } from '../../test/helpers/wireAssertions';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapAfterGc = async (): Promise<number> => {
  for (let i = 0; i < 3; i += 1) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return process.memoryUsage().heapUsed;
};

const REQUESTS = 24;
const CONTENT = 'x'.repeat(250_000);

let gateway: RunningGateway;
beforeAll(async () => {
  // Unpaced (CHATFLUX_EMULATOR_PACE_MS=0): this is about what the emulator keeps, not how fast it streams; at the
  // default 30 ms between events the 25 answers took about 40 s.
  gateway = await startGateway({ ...loadGatewayConfig({ CHATFLUX_EMULATOR_PACE_MS: '0' }), port: 0 }, { log: () => undefined });
});
afterAll(async () => gateway.close(0));

jest.setTimeout(60_000);

it(`${REQUESTS} requests of 250 KB leave the heap where it was (the emulator keeps no bodies)`, async () => {
  const ask = async (): Promise<void> => {
    const res = await rawRequest(`${gateway.url}/chat/json`, {
      // No AbortSignal.timeout: its pending timer would keep each request (and its body) alive for its duration.
      body: { messages: [{ role: 'user', content: CONTENT }] },
    });
    expect(expectJsonAnswer(res).done).toBe(true);
  };
  await ask(); // warm up
  const before = await heapAfterGc();
  for (let i = 0; i < REQUESTS; i += 1) await ask();
  const growth = (await heapAfterGc()) - before;
  // Kept bodies grew it by 6 MB and more (24 × 250 KB, parsed); a margin for everything else.
  expect(growth).toBeLessThan(4_000_000);
});
