/**
 * Per-key limits under CHATFLUX_WORKERS (issue #31, item 4), over real processes: a key limited to 2 streams at once
 * runs 2 in the whole gateway, not 2 per worker. Without Redis the primary holds the limits and the workers ask it
 * over the cluster's IPC; with Redis, a gateway of two workers and a second gateway process share them. Either way the
 * third concurrent stream is refused, whichever worker or instance it lands on (each worker names itself in
 * `X-Chatflux-Worker`: the refusals are seen on both).
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { startProgram, stopPrograms, type SpawnedProgram } from '../../test/helpers/gatewayProgram';
import { rawRequest, type RawResponse } from '../../test/helpers/rawRequest';
import { startRedis, type TestRedis } from '../../test/helpers/startRedis';

const KEY = 'limits-workers-key-0123456789';
const UPSTREAM_KEY = 'sk-limits-workers-upstream-42';
const auth = { Authorization: `Bearer ${KEY}` };
const ask = (scenario: string): Record<string, unknown> => ({ model: `deepseek-chat#${scenario}`, messages: [{ role: 'user', content: 'Hello, world!' }] });

type Gateway = SpawnedProgram & { url: string };

/** A stream held open on `url` until `stop()`: `admitted` resolves with its status and headers once they came. */
const hold = (url: string): { admitted: Promise<{ status: number; headers: IncomingHttpHeaders }>; stop(): Promise<RawResponse> } => {
  const controller = new AbortController();
  let admit: (head: { status: number; headers: IncomingHttpHeaders }) => void = () => undefined;
  const admitted = new Promise<{ status: number; headers: IncomingHttpHeaders }>((resolve) => (admit = resolve));
  const done = rawRequest(`${url}/chat/stream`, { headers: auth, body: ask('tokens=400;pace=25'), signal: controller.signal, onHeaders: (status, headers) => admit({ status, headers }) });
  void done.then((res) => admit(res));
  return {
    admitted,
    stop: () => {
      controller.abort();
      return done;
    },
  };
};

/**
 * Third streams sent to `url` until both of its workers have answered one (at most 12): every answer, with the worker
 * that gave it.
 */
async function thirdStreams(url: string): Promise<Array<{ status: number; worker: string }>> {
  const answers: Array<{ status: number; worker: string }> = [];
  while (answers.length < 12 && new Set(answers.map((a) => a.worker)).size < 2) {
    const res = await rawRequest(`${url}/chat/stream`, { headers: auth, body: ask('tokens=5') });
    answers.push({ status: res.status, worker: String(res.headers['x-chatflux-worker']) });
  }
  return answers;
}

describe('per-key concurrency under CHATFLUX_WORKERS=2', () => {
  let emulator: Emulator;
  const started: Gateway[] = [];
  const gatewayProgram = async (env: Record<string, string>): Promise<Gateway> => {
    const gateway = await startProgram({
      CHATFLUX_PROVIDER: 'openai-compatible',
      CHATFLUX_BASE_URL: emulator.url,
      CHATFLUX_API_KEY: UPSTREAM_KEY,
      CHATFLUX_MODEL: 'deepseek-chat',
      CHATFLUX_GATEWAY_KEYS: KEY,
      CHATFLUX_MAX_CONCURRENT: '2',
      CHATFLUX_HEARTBEAT_MS: '0',
      CHATFLUX_RESUMABLE: 'false',
      CHATFLUX_DEBUG_WORKER_HEADER: 'true',
      ...env,
    });
    started.push(gateway);
    return gateway;
  };
  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 31, apiKey: UPSTREAM_KEY });
  });
  afterEach(async () => {
    await stopPrograms(started.splice(0));
  }, 30_000);
  afterAll(async () => {
    await emulator?.close();
  });

  it('without Redis, the primary holds the limits: the third concurrent stream is refused on either worker', async () => {
    const gateway = await gatewayProgram({ CHATFLUX_WORKERS: '2' });
    const first = hold(gateway.url);
    const second = hold(gateway.url);
    try {
      const heads = await Promise.all([first.admitted, second.admitted]);
      expect(heads.map((head) => head.status)).toEqual([200, 200]);
      const answers = await thirdStreams(gateway.url);
      expect(new Set(answers.map((a) => a.worker))).toEqual(new Set(['1', '2']));
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 429));
    } finally {
      await first.stop();
      await second.stop();
    }
    // the places are released through the primary too: a stream is admitted again
    expect((await rawRequest(`${gateway.url}/chat/stream`, { headers: auth, body: ask('tokens=3') })).status).toBe(200);
    expect(gateway.stderr()).not.toMatch(/unreachable/);
  }, 60_000);

  it('without Redis, an admission the primary answered too late (stopped past the 1 s call timeout) is undone: refused 503 (closed), it holds no place once the primary runs again', async () => {
    const gateway = await gatewayProgram({ CHATFLUX_WORKERS: '2', CHATFLUX_MAX_CONCURRENT: '1', CHATFLUX_LIMITS_ON_STORE_FAILURE: 'closed' });
    const pid = gateway.child.pid ?? 0; // the primary (node runs gateway/src/main.ts itself)
    // one keep-alive connection: every request lands on the same worker, so its calls reach the primary in order
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (scenario: string): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        const body = JSON.stringify(ask(scenario));
        const req = httpRequest(`${gateway.url}/chat/stream`, { method: 'POST', agent, headers: { ...auth, 'Content-Type': 'application/json' } }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (piece: string) => (text += piece));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    try {
      expect((await send('tokens=3')).status).toBe(200); // the connection is now a worker's
      process.kill(pid, 'SIGSTOP');
      let late: { status: number; body: string };
      try {
        late = await send('tokens=3'); // its admission waits in the primary's channel; the worker stops waiting after 1 s
      } finally {
        process.kill(pid, 'SIGCONT'); // the primary runs it now (it admits: the place is free), then the worker's abort
      }
      expect(late.status).toBe(503);
      expect(late.body).toContain('limits_unavailable');
      // the place it took is given back: the next request (one place) is admitted, not refused for 30 s
      const next = await send('tokens=3');
      expect(next.status).toBe(200);
    } finally {
      process.kill(pid, 'SIGCONT');
      agent.destroy();
    }
  }, 60_000);

  describe('with Redis', () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await startRedis();
    });
    afterAll(async () => {
      await redis?.stop();
    });

    it('a gateway of two workers and a second gateway share them: the third concurrent stream is refused wherever it lands', async () => {
      const [workers, single] = await Promise.all([gatewayProgram({ CHATFLUX_WORKERS: '2', CHATFLUX_REDIS_URL: redis.url }), gatewayProgram({ CHATFLUX_REDIS_URL: redis.url })]);
      const first = hold(workers.url);
      const second = hold(single.url);
      try {
        expect((await first.admitted).status).toBe(200);
        expect((await second.admitted).status).toBe(200);
        const answers = await thirdStreams(workers.url);
        expect(new Set(answers.map((a) => a.worker))).toEqual(new Set(['1', '2']));
        expect(answers.map((a) => a.status)).toEqual(answers.map(() => 429));
        expect((await rawRequest(`${single.url}/chat/stream`, { headers: auth, body: ask('tokens=5') })).status).toBe(429);
      } finally {
        await first.stop();
        await second.stop();
      }
    }, 60_000);
  });
});
