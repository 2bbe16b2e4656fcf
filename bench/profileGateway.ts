/**
 * Profiles a proxy process under load: `npx tsx bench/profileGateway.ts [chatflux|floor|raw] [path=/chat/sse] [seconds=5]`.
 * The proxy runs with `node --cpu-prof` (profile in bench/.tmp/prof/), autocannon drives it at 50 connections, and the
 * profile is summarised by function and by file.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { load, spawn } from './gatewayLoad.js';
import type { Role } from './gateway/servers.js';
import { buildChatflux } from './lib/buildChatflux.js';
import { summarise } from './profile.js';

async function main(): Promise<void> {
  const [role = 'chatflux', path = '/chat/sse', seconds = '5'] = process.argv.slice(2);
  if (process.env['BENCH_CHATFLUX'] !== 'source') buildChatflux();
  const dir = join(__dirname, '.tmp', 'prof', `gateway-${role}-${Date.now()}`);
  const upstream = await spawn('upstream');
  if (typeof upstream === 'string') throw new Error(upstream);
  const proxy = await spawn(role as Role, upstream.url, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  if (typeof proxy === 'string') throw new Error(proxy);
  try {
    const before = await upstream.stats();
    const result = await load(`${proxy.url}${path}`, Number(seconds));
    const after = await upstream.stats();
    const cpu = await proxy.stats();
    process.stdout.write(
      `${result.requests.average.toFixed(0)} req/s, ${after.completed - before.completed} responses, proxy CPU so far ${(cpu.cpuUserMs + cpu.cpuSystemMs).toFixed(0)} ms\n`,
    );
  } finally {
    await proxy.close();
    await upstream.close();
  }
  // tsx's loader runs in a worker thread with its own (small) profile: the main thread's is the largest.
  const file = readdirSync(dir)
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
  process.stdout.write(`${file}\n${summarise(file, 40)}\n`);
}

void main();
