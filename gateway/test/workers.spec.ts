/**
 * CHATFLUX_WORKERS: the gateway program (`node --import tsx gateway/src/main.ts`) with two node:cluster workers on
 * one ephemeral port. Both workers serve (with CHATFLUX_DEBUG_WORKER_HEADER each names itself in `X-Chatflux-Worker`
 * by its index, never its PID; by default no header), and SIGTERM to the primary shuts them down gracefully: a stream
 * in flight completes with its `[DONE]`, the primary exits 0, the port is freed. A primary killed outright (`kill -9`)
 * leaves each worker to shut down gracefully too: the stream in flight gets the in-band `shutting_down` frame after
 * the grace, each worker says so on stderr and exits 0.
 * Without CHATFLUX_TOKEN_SECRET the workers still share one: a token of `POST /chat/token` passes on either worker.
 * A SIGTERM that comes while the workers are still starting is a clean stop too (exit 0). With OTLP metrics, each
 * worker exports its own cumulative counters, so each says which instance it is (`service.instance.id`): with one
 * resource, a collector would merge the two workers' series into one that jumps between their values.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { alive, GATEWAY_PROGRAM, portRefuses, processTree, spawnProgram, startProgram } from '../../test/helpers/gatewayProgram';
import { rawRequest } from '../../test/helpers/rawRequest';
import { waitFor } from '../../test/helpers/streamSources';
import { expectErrorAfterCommit } from '../../test/helpers/wireAssertions';

const KEY = 'workers-test-key';

interface OtlpMetrics {
  resourceMetrics?: Array<{ resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> } }>;
}

/** An OTLP/HTTP JSON metrics collector on 127.0.0.1 that records the `service.instance.id` of each export. */
async function startCollector(): Promise<{ server: Server; url: string; instances: string[] }> {
  const instances: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (text: string) => (body += text));
    req.on('end', () => {
      for (const { resource } of (JSON.parse(body || '{}') as OtlpMetrics).resourceMetrics ?? []) {
        instances.push(resource?.attributes?.find((attribute) => attribute.key === 'service.instance.id')?.value.stringValue ?? '(none)');
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, url: `http://127.0.0.1:${address.port}/v1/metrics`, instances };
}

describe('the gateway with CHATFLUX_WORKERS=2', () => {
  let child: ChildProcess | undefined;
  let collector: Server | undefined;
  let orphans: number[] = []; // workers whose primary a test kills: not left running when it fails
  afterEach(async () => {
    if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const pid of orphans) if (alive(pid)) process.kill(pid, 'SIGKILL');
    orphans = [];
    collector?.closeAllConnections();
    await new Promise<void>((resolve) => (collector === undefined ? resolve() : collector.close(() => resolve())));
    collector = undefined;
  });

  it('serves from both workers on one port, and SIGTERM lets a stream in flight complete, then exits 0', async () => {
    const otlp = await startCollector();
    collector = otlp.server;
    const env = {
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: otlp.url,
      CHATFLUX_WORKERS: '2',
      CHATFLUX_SHUTDOWN_GRACE_MS: '8000',
      CHATFLUX_GATEWAY_KEYS: KEY,
      CHATFLUX_TOKEN_SECRET: '',
      CHATFLUX_DEBUG_WORKER_HEADER: 'true',
    };
    const started = await startProgram(env, GATEWAY_PROGRAM, /listening on http:\/\/\S+ \(2 workers/);
    child = started.child;
    const { url, stderr } = started;
    const exited = started.exited.then(({ code }) => code);
    const processes = processTree(started.child.pid as number).map(String); // the primary, its workers, tsx's esbuild

    // Each request on a fresh connection: the primary hands connections to the workers in turn.
    const workers = new Set<string>();
    for (let i = 0; i < 20 && workers.size < 2; i++) {
      const response = await rawRequest(`${url}/no-such-page`, { headers: { Connection: 'close' } });
      expect(response.status).toBe(404); // any response of the gateway's names its worker
      expect(response.headers['x-chatflux-worker']).toMatch(/^\d+$/);
      workers.add(String(response.headers['x-chatflux-worker']));
    }
    expect(workers.size).toBe(2);
    // By its node:cluster index: no client learns a process id.
    expect(processes.length).toBeGreaterThanOrEqual(3);
    for (const worker of workers) expect(processes).not.toContain(worker);

    // EventSource tokens: issued by one worker, accepted by whichever serves the GET (fresh connections alternate).
    const q = encodeURIComponent(JSON.stringify({ model: 'deepseek-chat#tokens=2', messages: [{ role: 'user', content: 'hi' }] }));
    const statuses: number[] = [];
    let crossed = 0; // tokens served by the worker that did not issue them
    for (let i = 0; i < 4; i++) {
      const issued = await rawRequest(`${url}/chat/token`, { method: 'POST', headers: { Authorization: `Bearer ${KEY}`, Connection: 'close' } });
      const { token } = JSON.parse(issued.body) as { token: string };
      const sse = await rawRequest(`${url}/chat/sse?token=${encodeURIComponent(token)}&q=${q}`, { headers: { Connection: 'close' } });
      statuses.push(sse.status);
      if (sse.headers['x-chatflux-worker'] !== issued.headers['x-chatflux-worker']) crossed++;
    }
    expect(crossed).toBeGreaterThan(0);
    expect(statuses).toEqual([200, 200, 200, 200]);

    // A stream of ~1.5 s, signalled once it is under way: it completes within the grace.
    let soFar = '';
    const stream = rawRequest(`${url}/chat/sse`, {
      headers: { Authorization: `Bearer ${KEY}` },
      body: { model: 'deepseek-chat#pace=30;tokens=50', messages: [{ role: 'user', content: 'hi' }] },
      onPiece: (_text, all) => void (soFar = all),
    });
    await waitFor(() => soFar.split('"content"').length > 3, 20_000);
    started.child.kill('SIGTERM');
    const response = await stream;
    expect(response.status).toBe(200);
    expect(response.body).not.toContain('shutting_down');
    expect(response.body.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(await exited).toBe(0);
    expect(stderr()).toContain('SIGTERM: shutting down 2 workers');
    expect(await portRefuses(Number(new URL(url).port))).toBe(true);
    // Each worker flushed its metrics as it shut down, under an instance id of its own.
    expect(otlp.instances).not.toContain('(none)');
    expect(new Set(otlp.instances).size).toBe(2);
  }, 60_000);

  it('kill -9 of the primary: each worker shuts down gracefully (the stream in flight gets the shutting_down frame), says so, exits 0; no header names a worker by default', async () => {
    const started = await startProgram({ CHATFLUX_WORKERS: '2', CHATFLUX_SHUTDOWN_GRACE_MS: '1000' }, GATEWAY_PROGRAM, /listening on http:\/\/\S+ \(2 workers/);
    child = started.child;
    const { url, stderr } = started;
    const primary = started.child.pid as number;
    // The workers' PIDs from the OS: the primary's descendants that run the gateway (not tsx's esbuild service).
    const workers = processTree(primary).filter((pid) => pid !== primary && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('gateway/src/main.ts'));
    orphans = workers;
    expect(workers).toHaveLength(2);

    // Without CHATFLUX_DEBUG_WORKER_HEADER no response names its worker, nor carries a process id anywhere. Three
    // fresh connections: the stream then lands on the other worker than the first upstream connection's (round robin),
    // which shows that each worker's built-in emulator is its own (a shared one died with the idle worker: `network`).
    const named = new RegExp(`\\b(?:${[primary, ...workers].join('|')})\\b`);
    for (let i = 0; i < 3; i++) {
      const response = await rawRequest(`${url}/healthz`, { headers: { Connection: 'close' } });
      expect(response.status).toBe(200);
      expect(response.headers['x-chatflux-worker']).toBeUndefined();
      expect(Object.values(response.headers).join('\n')).not.toMatch(named);
    }

    // A stream far longer than the grace, under way on a worker, when the primary is killed outright.
    let soFar = '';
    const stream = rawRequest(`${url}/chat/sse`, {
      body: { model: 'deepseek-chat#pace=30;tokens=100000', messages: [{ role: 'user', content: 'a long answer, please' }] },
      onPiece: (_text, all) => void (soFar = all),
    });
    await waitFor(() => soFar.split('"content"').length > 3, 20_000);
    started.child.kill('SIGKILL');
    expect((await started.exited).signal).toBe('SIGKILL');

    // The stream ran on for the grace, then ended with the in-band frame and [DONE] (not cut mid-answer).
    const response = await stream;
    expect(expectErrorAfterCommit(response, '/chat/sse', 3).error.code).toBe('shutting_down');
    expect(response.body.endsWith('data: [DONE]\n\n')).toBe(true);
    // Each worker said why it shut down, and that it exits with code 0; then it is gone, and the port is free.
    const exitLines = workers.map((pid) => `chatflux gateway: worker ${pid} exits with code `);
    await waitFor(() => workers.every((pid) => !alive(pid)) && exitLines.every((line) => stderr().includes(line)), 20_000).catch(() => undefined);
    expect(workers.filter(alive)).toEqual([]);
    for (const pid of workers) {
      expect(stderr()).toContain(`worker ${pid}: primary ${primary} exited: shutting down (grace 1000 ms)`);
      expect(stderr()).toContain(`chatflux gateway: worker ${pid} exits with code 0`);
    }
    expect(await portRefuses(Number(new URL(url).port))).toBe(true);
  }, 60_000);

  it('SIGTERM while the workers are still starting is a clean stop: exit 0', async () => {
    const started = spawnProgram({ CHATFLUX_WORKERS: '2' });
    child = started.child;
    // The primary prints its configuration, then forks: its handlers are set; the workers take a while to load.
    await waitFor(() => started.stderr().includes('WARNING: CHATFLUX_GATEWAY_KEYS') || started.child.exitCode !== null, 40_000);
    started.child.kill('SIGTERM');
    expect((await started.exited).code).toBe(0);
    expect(started.stderr()).toContain('SIGTERM: shutting down 2 workers');
    expect(started.stderr()).not.toContain('listening on'); // the SIGTERM came before the workers listened
  }, 60_000);

  it('one process (no workers): a SIGTERM while it is still starting is kept, then shuts it down: exit 0, not 143', async () => {
    const started = spawnProgram();
    child = started.child;
    // The configuration is printed before the gateway starts (the emulator, the server): the SIGTERM comes meanwhile.
    await waitFor(() => started.stderr().includes('WARNING: CHATFLUX_GATEWAY_KEYS') || started.child.exitCode !== null, 40_000);
    started.child.kill('SIGTERM');
    expect(await started.exited).toMatchObject({ code: 0, signal: null });
    expect(started.stderr()).toContain('SIGTERM: shutting down');
  }, 60_000);
});
