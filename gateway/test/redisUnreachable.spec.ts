/**
 * The gateway with CHATFLUX_REDIS_URL set to a Redis that does not answer: it serves anyway (answers resumable on this
 * instance only), and says so in its log — once, not per reconnect — without the URL's password.
 */
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { startGateway } from '../src/startGateway';
import { rawRequest } from '../../test/helpers/rawRequest';

/** A loopback port nobody listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

it('logs that Redis is unreachable (resumable on this instance only), once and without the password', async () => {
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      done();
    },
  });
  const config = loadGatewayConfig({ PORT: '0', CHATFLUX_REDIS_URL: `redis://:hunter2-redis-password@127.0.0.1:${await closedPort()}/0` });
  const gateway = await startGateway(config, { logStream });
  try {
    const res = await rawRequest(`${gateway.url}/chat/stream`, { body: { messages: [{ role: 'user', content: 'hi' }] } });
    expect(res.status).toBe(200);
    expect(res.headers['chatflux-resumable']).toBe('local');
    await new Promise((resolve) => setTimeout(resolve, 1500)); // reconnects go on in the background
    const warnings = lines.map((line) => JSON.parse(line) as { level: string; msg: string }).filter((entry) => entry.level === 'warn');
    expect(warnings.map((entry) => entry.msg)).toEqual([expect.stringMatching(/Redis.*unreachable.*this instance only/)]);
    expect(lines.join('\n')).not.toContain('hunter2');
  } finally {
    await gateway.close(0);
  }
}, 30_000);
