/**
 * End to end with a real Prometheus server (Debian's `prometheus`, found or installed by the global setup): it scrapes
 * the gateway's /metrics (with the CHATFLUX_METRICS_TOKEN) every second, and after a few requests its query API
 * returns the GenAI series with the request's model. Bounded: at most 20 s of polling.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../src/startGateway';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawRequest } from '../../test/helpers/rawRequest';
import { PROMETHEUS } from '../../test/setup/PROMETHEUS';
import { requireTool } from '../../test/setup/requireTool';

const TOKEN = 'scrape-token-0123';
const BODY = { messages: [{ role: 'user', content: 'hi' }] };

/** A free port on 127.0.0.1 (Prometheus does not report the port it got for `:0`). */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

let emulator: Emulator | undefined;
let gateway: RunningGateway | undefined;
let prometheus: ChildProcess | undefined;
let dir: string | undefined;
afterAll(async () => {
  if (prometheus?.exitCode === null) {
    const exited = new Promise((resolve) => prometheus?.once('exit', resolve));
    prometheus.kill('SIGKILL');
    await exited;
  }
  await gateway?.close(0);
  await emulator?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

it("Prometheus scrapes the gateway's /metrics and its query API returns the GenAI series with the model", async () => {
  const executable = requireTool(PROMETHEUS);
  emulator = await startEmulator({ dialect: 'deepseek', seed: 11 });
  gateway = await startGateway(
    loadGatewayConfig({ PORT: '0', CHATFLUX_BASE_URL: emulator.url, CHATFLUX_MODEL: 'deepseek-chat', CHATFLUX_METRICS_TOKEN: TOKEN }),
    { log: () => undefined },
  );
  const target = new URL(gateway.url).host;
  dir = mkdtempSync(join(tmpdir(), 'chatflux-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global: { scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s }',
      'scrape_configs:',
      '  - job_name: chatflux',
      `    authorization: { credentials: ${TOKEN} }`,
      `    static_configs: [{ targets: ['${target}'] }]`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  let output = '';
  prometheus = spawn(executable, [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  prometheus.stdout?.on('data', (data: Buffer) => (output += data.toString()));
  prometheus.stderr?.on('data', (data: Buffer) => (output += data.toString()));

  for (const path of ['/chat/json', '/chat/stream', '/chat/sse']) expect((await rawRequest(`${gateway.url}${path}`, { body: BODY })).status).toBe(200);

  const query = async (expr: string): Promise<Array<{ metric: Record<string, string> }>> => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(expr)}`).catch(() => undefined);
    if (res?.ok !== true) return [];
    const body = (await res.json()) as { data?: { result?: Array<{ metric: Record<string, string> }> } };
    return body.data?.result ?? [];
  };
  const deadline = Date.now() + 20_000;
  let usage: Array<{ metric: Record<string, string> }> = [];
  let firstChunk: Array<{ metric: Record<string, string> }> = [];
  while (Date.now() < deadline && (usage.length === 0 || firstChunk.length === 0)) {
    if (prometheus.exitCode !== null) throw new Error(`prometheus exited with ${prometheus.exitCode}: ${output.slice(-2000)}`);
    usage = await query('gen_ai_client_token_usage_count{gen_ai_request_model="deepseek-chat"}');
    firstChunk = await query('gen_ai_client_operation_time_to_first_chunk_bucket{gen_ai_request_model="deepseek-chat"}');
    if (usage.length === 0 || firstChunk.length === 0) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(usage.map((series) => series.metric['gen_ai_token_type']).sort()).toEqual(['input', 'output']);
  expect(firstChunk.length).toBeGreaterThan(1); // one series per bucket
  expect(usage[0]?.metric).toMatchObject({ job: 'chatflux', gen_ai_operation_name: 'chat' });
  const requests = await query('chatflux_gateway_requests_total{http_route="/chat/sse",http_response_status_code="200"}');
  expect(requests).toHaveLength(1);
});
