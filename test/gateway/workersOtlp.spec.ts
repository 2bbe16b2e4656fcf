/**
 * CHATFLUX_WORKERS=2 with OTLP export: each worker pushes its own metrics (cumulative counters of its own), so each
 * must say which instance it is (`service.instance.id`, unique per process, as the OpenTelemetry resource conventions
 * require); with the same resource, a collector takes the two workers' series for one and their counters jump back
 * and forth. A collector on 127.0.0.1 that answers `{}` records what it receives (OTLP/HTTP JSON).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { ROOT, userEnv } from '../helpers/packedPackage';
import { waitFor } from '../helpers/streamSources';

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string };
}
interface OtlpMetrics {
  resourceMetrics?: Array<{ resource?: { attributes?: OtlpAttribute[] } }>;
}

describe('the gateway with CHATFLUX_WORKERS=2 and OTLP metrics', () => {
  let collector: Server | undefined;
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    collector?.closeAllConnections();
    await new Promise<void>((resolve) => (collector === undefined ? resolve() : collector.close(() => resolve())));
  });

  it('each worker exports under a service.instance.id of its own', async () => {
    const instances = new Set<string>();
    let payloads = 0;
    collector = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (text: string) => (body += text));
      req.on('end', () => {
        if (req.url === '/v1/metrics') {
          payloads++;
          for (const { resource } of (JSON.parse(body) as OtlpMetrics).resourceMetrics ?? []) {
            const id = resource?.attributes?.find((attribute) => attribute.key === 'service.instance.id')?.value.stringValue;
            instances.add(id ?? '(none)');
          }
        }
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector!.listen(0, '127.0.0.1', resolve));
    const address = collector.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const env = userEnv({
      PORT: '0',
      HOST: '127.0.0.1',
      CHATFLUX_WORKERS: '2',
      CHATFLUX_SHUTDOWN_GRACE_MS: '0',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `http://127.0.0.1:${address.port}/v1/metrics`,
    });
    const started = spawn(process.execPath, ['--import', 'tsx', 'src/gateway/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let stderr = '';
    started.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    started.stdout?.resume();
    const exited = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));
    await waitFor(() => /listening on http:\/\/\S+ \(2 workers/.test(stderr) || started.exitCode !== null, 40_000);
    if (!/listening on/.test(stderr)) throw new Error(`the gateway did not start: ${stderr}`);
    started.kill('SIGTERM'); // each worker flushes its metrics as it shuts down
    expect(await exited).toBe(0);
    expect(payloads).toBeGreaterThanOrEqual(2);
    expect(instances.has('(none)')).toBe(false);
    expect(instances.size).toBe(2);
  }, 40_000);
});
