import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ChatRequestLog } from '../../src/express/chatRouter';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { installedToolProject } from '../../test/helpers/packedPackage';
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../src/startGateway';

const run = promisify(execFile);

/**
 * Claude Code itself, headless (`claude -p`), against the gateway in front of the emulator, offline: its native binary
 * (the platform package `@anthropic-ai/claude-code-linux-x64`, installed into a temporary project once per run — its
 * npm package needs Node 22 for its wrapper), pointed at the gateway by `ANTHROPIC_BASE_URL` and the gateway's key,
 * its non-essential traffic, telemetry and auto-updater off, a scratch `HOME`, and every proxy variable on a closed
 * port so that nothing but the gateway on loopback is reachable. The model it asks for is a route of the config file:
 * DeepSeek, then Kimi. The task needs a tool call: the emulator's model calls Claude Code's
 * `Write` tool (the prompt names it), Claude Code runs it — the file appears on disk — and sends the result back,
 * and the model answers in text.
 */
describe('Claude Code on the gateway', () => {
  const PLATFORM_PACKAGE = '@anthropic-ai/claude-code-linux-x64';
  let gateway: RunningGateway;
  let emulators: Emulator[];
  let directory: string;
  let binary: string;
  const logs: ChatRequestLog[] = [];
  const KEY = 'sk-gw-claude-code';

  beforeAll(async () => {
    const project = await installedToolProject('claude-code', [PLATFORM_PACKAGE]);
    binary = join(project, 'node_modules', PLATFORM_PACKAGE, 'claude');
    // The route of the docs: DeepSeek, Kimi as its fallback. The model calls tools in one step, then answers (Claude
    // Code ends its turns with a system reminder, so "the last message is a tool result" cannot tell the emulator).
    emulators = await Promise.all([startEmulator({ dialect: 'deepseek', seed: 3, scenario: 'tool-steps=1' }), startEmulator({ dialect: 'moonshot', seed: 3 })]);
    directory = mkdtempSync(join(tmpdir(), 'chatflux-claude-code-'));
    const configFile = join(directory, 'gateway.yaml');
    writeFileSync(
      configFile,
      [
        'serve:',
        '  apiKeys: ${GATEWAY_KEY}',
        'routes:',
        '  claude-sonnet-5:',
        '    breaker: false',
        '    targets:',
        `      - { provider: openai-compatible, baseUrl: "${emulators[0]!.url}", model: deepseek-chat, name: deepseek, retries: 0 }`,
        `      - { provider: openai-compatible, baseUrl: "${emulators[1]!.url}", model: kimi-k2-0905-preview, name: kimi, retries: 0 }`,
        '',
      ].join('\n'),
    );
    gateway = await startGateway({ ...loadGatewayConfig({ GATEWAY_KEY: KEY }, { configFile }), port: 0 }, { log: (entry) => logs.push(entry) });
  }, 360_000);
  afterAll(async () => {
    await gateway?.close(0);
    await Promise.all((emulators ?? []).map((emulator) => emulator.close()));
    rmSync(directory, { recursive: true, force: true });
  });

  it('claude -p completes a task that needs a tool call, through a route, offline', async () => {
    const home = join(directory, 'home');
    mkdirSync(join(home, '.claude'), { recursive: true });
    // No attribution reminder in the user's turn: the emulator's model reads the prompt itself.
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ includeCoAuthoredBy: false, attribution: { commit: '', pr: '' } }));
    // A short path (the emulator's model quotes the first 24 characters of the prompt as the tool's arguments).
    const work = mkdtempSync('/tmp/cc');
    const target = join(work, 'Write.txt');
    const closed = 'http://127.0.0.1:9'; // the discard port: nothing listens, so any request but the gateway's fails at once
    try {
      const running = run(binary, ['-p', target, '--model', 'claude-sonnet-5', '--permission-mode', 'acceptEdits'], {
        cwd: work,
        timeout: 120_000,
        env: {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          HOME: home,
          ANTHROPIC_BASE_URL: gateway.url,
          ANTHROPIC_API_KEY: KEY,
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_AUTOUPDATER: '1',
          HTTP_PROXY: closed,
          HTTPS_PROXY: closed,
          http_proxy: closed,
          https_proxy: closed,
          NO_PROXY: '127.0.0.1,localhost',
          no_proxy: '127.0.0.1,localhost',
        },
      });
      running.child.stdin?.end(); // `claude -p` reads a piped stdin as more of the prompt: give it none
      const { stdout } = await running;
      // Claude Code ran its Write tool with the model's arguments: the file holds what the model wrote.
      expect(readFileSync(target, 'utf8')).toBe(target);
      // The model's last answer, in text, quotes the prompt (as the emulator's answers do).
      expect(stdout).toContain(`关于「${target}」`);
      const served = logs.filter((entry) => entry.endpoint === '/v1/messages');
      expect(served.length).toBeGreaterThanOrEqual(2);
      expect(served.every((entry) => entry.status === 200 && entry.result === 'completed')).toBe(true);
      // Each request went by the route to DeepSeek, which got the tool results back.
      expect(served.map((entry) => entry.target)).toEqual(served.map(() => 'deepseek'));
      const last = emulators[0]!.requests.at(-1)!.body as { messages: Array<{ role: string; content?: unknown }> };
      expect(last.messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([expect.stringContaining(`File created successfully at: ${target}`)]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 180_000);
});
