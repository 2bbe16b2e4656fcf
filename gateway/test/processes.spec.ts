/**
 * The gateway as the program a user starts, each way the README documents — `npm start` in a clone, `node
 * dist/cjs/gateway/main.js` after a build, and from the installed package `node node_modules/chatflux/bin/…` (the
 * production command) and `npx chatflux-gateway` — signalled as an orchestrator or a terminal does: SIGTERM or SIGINT
 * to the process the user started. Each time the gateway runs its graceful shutdown (the streams in flight end with
 * the in-band `shutting_down` frame after the grace), frees its port, and leaves no process behind, within 15 s.
 * Also: a port in use and a bad setting are one line naming it, and exit code 1.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { alive, portRefuses, processTree, startProgram } from '../../test/helpers/gatewayProgram';
import { installedGatewayProject, packedGatewayTarball, ROOT, runDir, userEnv } from '../../test/helpers/packedPackage';
import { rawRequest, type RawResponse } from '../../test/helpers/rawRequest';
import { waitFor } from '../../test/helpers/streamSources';
import { expectErrorAfterCommit } from '../../test/helpers/wireAssertions';

/** A long streaming answer (the built-in emulator's scenario in the model name), resolved when the stream ends. */
function longStream(url: string, endpoint: '/chat/stream' | '/chat/sse'): { received: () => string; done: Promise<RawResponse> } {
  let soFar = '';
  const done = rawRequest(`${url}${endpoint}`, {
    body: { model: 'deepseek-chat#pace=50;tokens=100000', messages: [{ role: 'user', content: 'a long answer, please' }] },
    onPiece: (_text, all) => void (soFar = all),
  });
  return { received: () => soFar, done };
}

const GRACE_MS = 1000;

interface Case {
  name: string;
  signal: 'SIGTERM' | 'SIGINT';
  /** Where and what to run; `project`: the temporary project with the packed package installed. */
  run: (project: string) => [command: string, args: string[], cwd: string];
  /** Unset: the default grace (10 s). */
  graceMs?: number;
  /** npx: npm's `sh -c` dies of the signal without passing it on, and npm then ends itself with that signal. */
  exit: 'code 0' | 'by the signal';
}

const CASES: Case[] = [
  { name: 'npm start (clone), default grace', signal: 'SIGTERM', run: () => ['npm', ['start'], ROOT], exit: 'code 0' },
  { name: 'npm start (clone)', signal: 'SIGINT', run: () => ['npm', ['start'], ROOT], graceMs: GRACE_MS, exit: 'code 0' },
  { name: 'node gateway/dist/main.js (clone, built)', signal: 'SIGTERM', run: () => [process.execPath, ['gateway/dist/main.js'], ROOT], graceMs: GRACE_MS, exit: 'code 0' },
  {
    name: 'node node_modules/chatflux-gateway/bin/chatflux-gateway.cjs (installed: the production command)',
    signal: 'SIGTERM',
    run: (project) => [process.execPath, ['node_modules/chatflux-gateway/bin/chatflux-gateway.cjs'], project],
    graceMs: GRACE_MS,
    exit: 'code 0',
  },
  {
    name: 'node node_modules/chatflux-gateway/bin/chatflux-gateway.cjs (installed: the production command)',
    signal: 'SIGINT',
    run: (project) => [process.execPath, ['node_modules/chatflux-gateway/bin/chatflux-gateway.cjs'], project],
    graceMs: GRACE_MS,
    exit: 'code 0',
  },
  { name: 'npx chatflux-gateway (installed)', signal: 'SIGTERM', run: (project) => ['npx', ['chatflux-gateway'], project], graceMs: GRACE_MS, exit: 'by the signal' },
];

describe('the gateway program, signalled', () => {
  let project: string;
  beforeAll(async () => {
    // The pack builds both packages in the clone (node gateway/dist/…) and the project installs both tarballs.
    project = await installedGatewayProject();
  }, 600_000);

  it.concurrent.each(CASES)('$name: $signal ends it gracefully within 15 s, leaving no process', async ({ signal, run, graceMs, exit }) => {
    const [command, args, cwd] = run(project);
    const gateway = await startProgram(graceMs === undefined ? {} : { CHATFLUX_SHUTDOWN_GRACE_MS: String(graceMs) }, { command, args, cwd });
    const tree = new Set<number>();
    try {
      const streams = [longStream(gateway.url, '/chat/stream'), longStream(gateway.url, '/chat/sse')];
      await waitFor(() => streams.every((stream) => stream.received().split('"content"').length > 3), 20_000);
      for (const pid of processTree(gateway.child.pid as number)) tree.add(pid);
      expect(tree.size).toBeGreaterThanOrEqual(1);
      const port = Number(new URL(gateway.url).port);
      const signalled = Date.now();
      gateway.child.kill(signal);
      const [ndjson, sse] = await Promise.all(streams.map((stream) => stream.done));
      const ended = Date.now();
      expect(expectErrorAfterCommit(ndjson as RawResponse, '/chat/stream', 3).error.code).toBe('shutting_down');
      expect(expectErrorAfterCommit(sse as RawResponse, '/chat/sse', 3).error.code).toBe('shutting_down');
      // The streams ran on for the grace, then ended with the frame (a generous margin under a loaded machine).
      expect(ended - signalled).toBeGreaterThanOrEqual((graceMs ?? 10_000) - 200);
      const { code, signal: killedBy, at } = await gateway.exited;
      if (exit === 'code 0') expect({ code, killedBy }).toEqual({ code: 0, killedBy: null });
      else expect({ code, killedBy }).toEqual({ code: null, killedBy: signal });
      // Every process of the tree, the gateway included, is gone within 15 s of the signal; the port is free.
      await waitFor(() => [...tree].every((pid) => !alive(pid)), Math.max(0, signalled + 15_000 - Date.now()));
      expect(Math.max(at, Date.now()) - signalled).toBeLessThan(15_000);
      expect(await portRefuses(port)).toBe(true);
      // npx: the gateway learns it from its parent's exit (npm's shell died of the signal), and shuts down as on it.
      expect(gateway.stderr()).toContain(`${exit === 'code 0' ? signal : 'parent process exited'}: shutting down`);
    } finally {
      for (const pid of [gateway.child.pid as number, ...tree]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 60_000);
});

describe('the gateway program, refusing to start', () => {
  const bin = (): string => join(ROOT, 'gateway', 'bin', 'chatflux-gateway.cjs');
  beforeAll(() => packedGatewayTarball(), 300_000); // builds both packages (the bin runs gateway/dist)

  /** Runs the bin to its end (after `preload`, a module given to `node --require`); resolves with its exit code and stderr. */
  const runBin = (env: Record<string, string>, preload?: string): Promise<{ code: number | null; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [...(preload === undefined ? [] : ['--require', preload]), bin()], { cwd: ROOT, env: userEnv({ HOST: '127.0.0.1', ...env }), stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      child.once('close', (code) => resolve({ code, stderr }));
    });

  it('a port in use: one line naming the port and what to do, exit code 1, nothing left listening', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as AddressInfo;
    try {
      const { code, stderr } = await runBin({ PORT: String(port) });
      expect(code).toBe(1);
      expect(stderr.trim().split('\n').at(-1)).toBe(
        `chatflux gateway failed to start: port ${port} on 127.0.0.1 is already in use (EADDRINUSE): stop the other server, or set PORT to a free port`,
      );
      expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
    } finally {
      busy.close();
    }
  }, 30_000);

  it('without express installed: one line saying to install it, exit code 1', async () => {
    // As in a project that installed chatflux alone: resolving `express` fails as Node fails it.
    const preload = join(runDir(), 'without-express.cjs');
    writeFileSync(
      preload,
      `const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'express') throw Object.assign(new Error("Cannot find module 'express'"), { code: 'MODULE_NOT_FOUND' });
  return resolve.call(this, request, ...rest);
};
`,
    );
    const { code, stderr } = await runBin({ PORT: '0' }, preload);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual(['chatflux gateway failed to start: the gateway needs the package "express", which is not installed: npm install express']);
  }, 30_000);

  it.each([
    [{ PORT: 'http' }, 'chatflux gateway failed to start: PORT must be an integer from 0 to 65535, got "http": fix or unset it.'],
    [{ CHATFLUX_SHUTDOWN_GRACE_MS: '-5' }, 'chatflux gateway failed to start: CHATFLUX_SHUTDOWN_GRACE_MS must be an integer from 0 to 3600000, got "-5": fix or unset it.'],
    [{ CHATFLUX_PROVIDER: 'gemini' }, /^chatflux gateway failed to start: CHATFLUX_PROVIDER must be one of emulator, .*, got "gemini"\.$/],
    [{ CHATFLUX_WORKERS: 'two' }, 'chatflux gateway failed to start: CHATFLUX_WORKERS must be "auto" (one worker per core) or a whole number from 1 to 256, got "two".'],
    [{ CHATFLUX_ROUTES: '{"chat":{"targets":[{"provider":"deepseek","retry":1}]}}' }, /^chatflux gateway failed to start: CHATFLUX_ROUTES is not a valid route table: chat\.targets\.0: .*retry.*"Failover" section\.$/],
    [{ CHATFLUX_METRICS_TOKEN: 'two words' }, /^chatflux gateway failed to start: CHATFLUX_METRICS_TOKEN must be one word/],
  ])('a bad setting %j: one line naming it, exit code 1', async (env, line) => {
    const { code, stderr } = await runBin({ PORT: '0', ...env });
    expect(code).toBe(1);
    if (typeof line === 'string') expect(stderr.trim().split('\n').at(-1)).toBe(line);
    else expect(stderr.trim().split('\n').at(-1)).toMatch(line);
    expect(stderr).not.toMatch(/\n\s+at /);
  }, 30_000);
});
