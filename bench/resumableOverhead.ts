/**
 * What resumable answers (issue #30) cost a streamed response — measured, not asserted: time to first byte and the
 * gateway's CPU per `POST /chat/sse` answer, in the same run, for three gateway programs in front of one emulator:
 *
 * - `off`: `CHATFLUX_RESUMABLE=false` (a disconnect aborts the upstream; nothing logged);
 * - `memory`: the default in-memory stream log;
 * - `redis`: `CHATFLUX_REDIS_URL` (a local `redis-server`, started here and stopped by PID).
 *
 * Each gateway serves the same answers (`tokens` content events, no pacing) to `concurrency` clients at a time,
 * `requests` in all, after a warm-up; CPU is the gateway process's user + system time (from /proc) over the measured
 * requests, divided by their count (redis-server's own CPU is reported beside it).
 *
 * Run: `npx tsx bench/resumableOverhead.ts [--requests 400] [--concurrency 8] [--tokens 200]`
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { startEmulator } from '../src/testing/startEmulator.js';
import { startProgram } from '../test/helpers/gatewayProgram.js';
import { startRedis } from '../test/helpers/startRedis.js';

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
};
const REQUESTS = arg('requests', 400);
const CONCURRENCY = arg('concurrency', 8);
const TOKENS = arg('tokens', 200);
const WARMUP = Math.min(50, REQUESTS);

/** The process's user + system CPU time, in ms (from /proc/<pid>/stat, in clock ticks of 10 ms). */
const cpuMs = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** One answer: its time to first body byte and to the end, in ms. */
const ask = (url: string): Promise<{ ttfb: number; total: number }> =>
  new Promise((resolve, reject) => {
    const started = performance.now();
    let ttfb = -1;
    const body = JSON.stringify({ model: `deepseek-chat#tokens=${TOKENS}`, messages: [{ role: 'user', content: 'bench' }] });
    const req = httpRequest(`${url}/chat/sse`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, agent: false }, (res) => {
      res.on('data', () => {
        if (ttfb < 0) ttfb = performance.now() - started;
      });
      res.on('end', () => resolve({ ttfb, total: performance.now() - started }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

async function load(url: string, count: number): Promise<number[]> {
  const ttfbs: number[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next++;
      ttfbs.push((await ask(url)).ttfb);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return ttfbs;
}

async function main(): Promise<void> {
  const emulator = await startEmulator({ dialect: 'deepseek', seed: 3, requestLog: false, requestScenarios: true });
  const redis = await startRedis();
  const base = { CHATFLUX_PROVIDER: 'openai-compatible', CHATFLUX_BASE_URL: emulator.url, CHATFLUX_API_KEY: 'sk-bench', CHATFLUX_MODEL: 'deepseek-chat', CHATFLUX_HEARTBEAT_MS: '0' };
  const modes: Array<[string, Record<string, string>]> = [
    ['off', { CHATFLUX_RESUMABLE: 'false' }],
    ['memory', {}],
    ['redis', { CHATFLUX_REDIS_URL: redis.url }],
  ];
  const gateways = await Promise.all(modes.map(([, env]) => startProgram({ ...base, ...env })));
  const rows: string[] = [];
  try {
    for (let round = 0; round < 2; round++) {
      for (const [index, [name]] of modes.entries()) {
        const gateway = gateways[index]!;
        const pid = gateway.child.pid!;
        await load(gateway.url, WARMUP);
        const cpu = cpuMs(pid);
        const redisCpu = redis.pid === undefined ? 0 : cpuMs(redis.pid);
        const started = performance.now();
        const ttfbs = await load(gateway.url, REQUESTS);
        const seconds = (performance.now() - started) / 1000;
        const perResponse = (cpuMs(pid) - cpu) / REQUESTS;
        const redisPer = redis.pid === undefined ? 0 : (cpuMs(redis.pid) - redisCpu) / REQUESTS;
        rows.push(
          `round ${round + 1} ${name.padEnd(6)}  TTFB p50 ${percentile(ttfbs, 50).toFixed(2)} ms  p99 ${percentile(ttfbs, 99).toFixed(2)} ms  ` +
            `gateway CPU ${perResponse.toFixed(2)} ms/response  redis-server CPU ${redisPer.toFixed(2)} ms/response  ${(REQUESTS / seconds).toFixed(0)} responses/s`,
        );
        console.log(rows.at(-1));
      }
    }
  } finally {
    for (const gateway of gateways) {
      gateway.child.kill('SIGTERM');
      await gateway.exited;
    }
    await redis.stop();
    await emulator.close();
  }
  console.log(`\n${REQUESTS} POST /chat/sse answers of ${TOKENS} events each, ${CONCURRENCY} at a time, per mode and round:\n${rows.join('\n')}`);
}

void main();
