/**
 * `/metrics` for the whole gateway under CHATFLUX_WORKERS (issue #31, item 6), over the real program: requests spread
 * over two workers, and every scrape — whichever worker takes it — counts them all (the primary sums the workers'
 * series with prom-client's AggregatorRegistry), under the instance's id (`target_info`'s `service_instance_id`:
 * CHATFLUX_INSTANCE_ID, else `<hostname>:<pid>` of the primary). A gateway without workers says its id too.
 */
import { hostname } from 'node:os';
import { execFileSync } from 'node:child_process';
import { startProgram, stopPrograms, type SpawnedProgram } from '../../test/helpers/gatewayProgram';
import { rawRequest } from '../../test/helpers/rawRequest';

const KEY = 'metrics-workers-key-0123456789';
const REQUESTS = 10;
const ask = { model: 'deepseek-chat', messages: [{ role: 'user', content: 'Hello, world!' }] };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The sum of every `chatflux_gateway_requests_total` sample of a scrape. */
const requestsCounted = (text: string): number =>
  [...text.matchAll(/^chatflux_gateway_requests_total(?:\{[^}]*\})? (\d+(?:\.\d+)?)$/gm)].reduce((sum, match) => sum + Number(match[1]), 0);

describe('/metrics under CHATFLUX_WORKERS=2', () => {
  const started: SpawnedProgram[] = [];
  afterEach(async () => {
    await stopPrograms(started.splice(0));
  }, 30_000);

  it('answers for both workers, whichever takes the scrape: the request counter totals the requests sent', async () => {
    const gateway = await startProgram({ CHATFLUX_WORKERS: '2', CHATFLUX_DEBUG_WORKER_HEADER: 'true', CHATFLUX_GATEWAY_KEYS: KEY, CHATFLUX_EMULATOR_PACE_MS: '0', CHATFLUX_INSTANCE_ID: 'gw-a.example:7' });
    started.push(gateway);
    const servedBy = new Set<string>();
    for (let i = 0; i < REQUESTS; i++) {
      const res = await rawRequest(`${gateway.url}/chat/json`, { headers: { Authorization: `Bearer ${KEY}` }, body: ask });
      expect(res.status).toBe(200);
      servedBy.add(String(res.headers['x-chatflux-worker']));
    }
    expect(servedBy).toEqual(new Set(['1', '2']));
    // A request is counted as its log line is written, just after its response: wait until the count is in.
    let text = '';
    for (const deadline = Date.now() + 15_000; requestsCounted(text) !== REQUESTS && Date.now() < deadline; await sleep(100)) {
      text = (await rawRequest(`${gateway.url}/metrics`)).body;
    }
    expect(requestsCounted(text)).toBe(REQUESTS);
    const scrapedBy = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const scrape = await rawRequest(`${gateway.url}/metrics`);
      expect(scrape.status).toBe(200);
      expect(scrape.headers['content-type']).toMatch(/^text\/plain/);
      scrapedBy.add(String(scrape.headers['x-chatflux-worker']));
      expect(requestsCounted(scrape.body)).toBe(REQUESTS);
      expect(scrape.body).toMatch(/^target_info\{[^}]*service_instance_id="gw-a\.example:7"[^}]*\} 1$/m);
      // one series per label set: the workers' samples are summed, not listed side by side
      const series = scrape.body.split('\n').filter((line) => line.startsWith('chatflux_gateway_requests_total'));
      expect(new Set(series.map((line) => line.slice(0, line.lastIndexOf(' ')))).size).toBe(series.length);
    }
    expect(scrapedBy).toEqual(new Set(['1', '2']));
  }, 90_000);

  it('answers while a worker that died is being replaced (the new one, not ready yet, is not waited for)', async () => {
    const gateway = await startProgram({ CHATFLUX_WORKERS: '2', CHATFLUX_DEBUG_WORKER_HEADER: 'true', CHATFLUX_GATEWAY_KEYS: KEY, CHATFLUX_EMULATOR_PACE_MS: '0' });
    started.push(gateway);
    expect((await rawRequest(`${gateway.url}/metrics`)).status).toBe(200);
    const workersOf = (): number[] =>
      execFileSync('ps', ['-o', 'pid=', '--ppid', String(gateway.child.pid)], { encoding: 'utf8' })
        .split('\n')
        .map((line) => Number(line.trim()))
        .filter((pid) => pid > 0);
    const [victim] = workersOf();
    expect(victim).toBeDefined();
    process.kill(victim!, 'SIGKILL'); // a worker this test's gateway forked
    // Once the primary has reaped it (a connection handed to the worker at the instant it died is the kernel's race,
    // not what this test is about), every scrape answers while its replacement starts.
    for (const deadline = Date.now() + 30_000; workersOf().includes(victim!); ) {
      if (Date.now() > deadline) throw new Error(`worker ${victim} was not reaped within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const statuses: number[] = [];
    for (const deadline = Date.now() + 8000; Date.now() < deadline; ) {
      statuses.push((await rawRequest(`${gateway.url}/metrics`, { signal: AbortSignal.timeout(15_000) })).status);
      if (workersOf().length === 2 && statuses.length >= 3) break; // its replacement is forked and asked
    }
    expect(statuses.length).toBeGreaterThanOrEqual(1);
    expect(statuses).toEqual(statuses.map(() => 200));
  }, 90_000);

  it('names the instance by <hostname>:<pid> of its primary by default', async () => {
    const gateway = await startProgram({ CHATFLUX_WORKERS: '2', CHATFLUX_GATEWAY_KEYS: KEY });
    started.push(gateway);
    const text = (await rawRequest(`${gateway.url}/metrics`)).body;
    const escaped = `${hostname()}:${gateway.child.pid}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(text).toMatch(new RegExp(`^target_info\\{[^}]*service_instance_id="${escaped}"`, 'm'));
  }, 60_000);
});
