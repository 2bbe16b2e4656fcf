/**
 * The gateway program's graceful shutdown with OTLP export on (OTEL_EXPORTER_OTLP_ENDPOINT) and a collector on
 * 127.0.0.1 that accepts requests but never answers: the exporters' last flush must not hold the exit for their own
 * 10 s timeout (README "Production": it exits about a second after the grace). A child process: the exporters'
 * transport is loaded as Node loads it, not through jest's module registry.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { startProgram } from '../../test/helpers/gatewayProgram';

describe('the gateway program with an OTLP collector that never answers', () => {
  let collector: Server | undefined;
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    collector?.closeAllConnections();
    await new Promise<void>((resolve) => (collector === undefined ? resolve() : collector.close(() => resolve())));
  });

  it('exits 0 within about a second of the grace after SIGTERM, not after the exporters\' timeout', async () => {
    const exported: string[] = [];
    collector = createServer((req) => void exported.push(String(req.url))); // a black hole: never answered
    await new Promise<void>((resolve) => collector!.listen(0, '127.0.0.1', resolve));
    const address = collector.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const started = await startProgram({
      CHATFLUX_EMULATOR_PACE_MS: '0',
      CHATFLUX_SHUTDOWN_GRACE_MS: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${address.port}`,
    });
    child = started.child;
    const { url, exited } = started;
    expect(started.stderr()).toContain('OTLP traces + metrics');
    const response = await fetch(`${url}/chat/json`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Connection: 'close' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    await response.text();
    const signalled = Date.now();
    started.child.kill('SIGTERM');
    expect((await exited).code).toBe(0);
    const took = Date.now() - signalled;
    expect(exported).toEqual(expect.arrayContaining(['/v1/traces'])); // the exporters did try the collector
    expect(took).toBeLessThan(4000); // the exporters' own timeout is 10 s
  }, 40_000);
});
