/**
 * Runs every program in examples/ as a user would (`tsx examples/X.ts`, resolving `chatflux` through tsconfig
 * `paths`) against the upstream emulator, and checks what it prints and serves. (examples/*.spec.ts run in jest
 * directly.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { startEmulator, type Emulator } from '../../src/testing/index.js';

const root = join(__dirname, '..', '..');
const API_KEY = 'sk-example-key';
const RUN_TIMEOUT_MS = 60_000;

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

const children = new Set<ChildProcess>();

function spawnExample(file: string, env: Record<string, string>, args: string[] = []): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join('examples', file), ...args], {
    cwd: root,
    env: { ...process.env, ...env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Runs an example to its end (killed after RUN_TIMEOUT_MS). */
function run(file: string, env: Record<string, string>, args: string[] = []): Promise<Finished> {
  const child = spawnExample(file, env, args);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (part: Buffer) => (stdout += part.toString('utf8')));
  child.stderr?.on('data', (part: Buffer) => (stderr += part.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** Starts a server example and resolves once its stdout matches `ready`. */
function serve(file: string, env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawnExample(file, env);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not start: ${output}`)), RUN_TIMEOUT_MS);
    const onData = (part: Buffer): void => {
      output += part.toString('utf8');
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (part: Buffer) => (output += part.toString('utf8')));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited with ${String(code)}: ${output}`));
    });
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** The `data:` payloads of an SSE text, in order. */
const dataOf = (text: string): string[] =>
  text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => frame.slice('data: '.length));

/** Asserts the contract's chunk sequence: consecutive indexes from 0, exactly one `done: true`, the last. */
function expectContractChunks(payloads: string[]): string {
  expect(payloads.at(-1)).toBe('[DONE]');
  const chunks = payloads.slice(0, -1).map((p) => JSON.parse(p) as { message: { content: string }; done: boolean; index: number });
  expect(chunks.length).toBeGreaterThan(1);
  expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
  expect(chunks.map((c) => c.done)).toEqual(chunks.map((_, i) => i === chunks.length - 1));
  return chunks.map((c) => c.message.content).join('');
}

describe('examples/', () => {
  let emulator: Emulator;
  let env: Record<string, string>;
  beforeAll(async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 1, apiKey: API_KEY });
    env = { CHATFLUX_BASE_URL: emulator.url, CHATFLUX_API_KEY: API_KEY, DEEPSEEK_API_KEY: API_KEY, CHATFLUX_MODEL: 'deepseek-chat' };
  });
  afterEach(async () => {
    await Promise.all([...children].map((child) => stop(child)));
  });
  afterAll(() => emulator.close());

  it('quickstart.ts serves POST /chat/sse from the upstream', async () => {
    const port = await freePort();
    const { child } = await serve('quickstart.ts', { ...env, PORT: String(port) }, /POST http:\/\/127\.0\.0\.1:\d+\/chat\/sse/);
    const res = await fetch(`http://127.0.0.1:${port}/chat/sse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'Hello, world!' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const text = expectContractChunks(dataOf(await res.text()));
    expect(text).toMatch(/^关于「Hello, world!」，/);
    const before = emulator.requests.length;
    const bad = await fetch(`http://127.0.0.1:${port}/chat/sse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [] }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/^event: error\ndata: \{"message":"invalid request body: messages: [^"]+","type":"invalid_request_error","code":"invalid_request"\}\n\ndata: \[DONE\]\n\n$/);
    expect(emulator.requests.length).toBe(before);
    expect(await stop(child)).not.toBe(1);
  });

  it('pipeline.ts prints the answer, the tool call and the fetch answer', async () => {
    const { code, stdout, stderr } = await run('pipeline.ts', env);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/^answer: 关于「Say hello」，/m);
    expect(stdout).toMatch(/^usage: \{"prompt_tokens":\d+,"completion_tokens":\d+/m);
    expect(stdout).toMatch(/^tool call call_\S+: get_weather\(\{"city":".+"\}\)$/m);
    expect(stdout).toMatch(/^finish_reason: tool_calls$/m);
    expect(stdout).toMatch(/^via fetch: 关于「Hi from fetch」，/m);
  });

  it('tool-calls.ts runs the tool with runTools and sends its result back for the final answer', async () => {
    const before = emulator.requests.length;
    const { code, stdout, stderr } = await run('tool-calls.ts', env);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/^→ get_weather\(\{"city":".+"\}\) = \{"city":".+","celsius":21,"sky":"clear"\}$/m);
    expect(stdout).toMatch(/^关于「\{"city":".+\n/m); // the answer to the tool result, streamed
    expect(stdout).toMatch(/^final answer: [1-9]\d* characters, [1-9]\d* tokens in all$/m);
    const requests = emulator.requests.slice(before);
    expect(requests).toHaveLength(2);
    const second = requests[1]?.body as { messages: Array<{ role: string; tool_call_id?: string; tool_calls?: unknown[] }> };
    expect(second.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(second.messages[1]?.tool_calls).toHaveLength(1);
    expect(second.messages[2]?.tool_call_id).toMatch(/^call_/);
  });

  it('cli-chat.ts streams the answer to stdout and the progress line to stderr', async () => {
    const { code, stdout, stderr } = await run('cli-chat.ts', env, ['你好']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^关于「你好」，.+\n$/s);
    expect(stderr).toMatch(/ttft \d+ ms · \d+ tokens · [\d.]+ tokens\/s · stop\n$/);
  });

  it('cli-chat.ts reports an upstream refusal with its code and exit code 1', async () => {
    const { code, stdout, stderr } = await run('cli-chat.ts', { ...env, CHATFLUX_API_KEY: 'sk-wrong' });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/error upstream_http: upstream answered HTTP 401/);
    expect(stderr).not.toContain('sk-wrong');
  });

  it('nestjs/withEmulator.ts (npm run example:nestjs) runs main.ts, the adapters guide\'s, and serves the module\'s routes and its own', async () => {
    const port = await freePort();
    await serve('nestjs/withEmulator.ts', { ...env, PORT: String(port) }, /listening on http:\/\/127\.0\.0\.1:\d+/);
    const base = `http://127.0.0.1:${port}`;
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'Hi' }] });
    const headers = { 'content-type': 'application/json' };
    const json = await fetch(`${base}/v1/chat/json`, { method: 'POST', headers, body });
    expect(json.status).toBe(200);
    expect(await json.json()).toMatchObject({ done: true, message: { role: 'assistant', content: expect.stringMatching(/^关于「Hi」，.*[。！]$/) } });
    const sse = await fetch(`${base}/assistant/ask`, { method: 'POST', headers, body });
    expect(sse.status).toBe(200);
    expect(expectContractChunks(dataOf(await sse.text()))).toMatch(/^关于「Hi」，/);
  });

  it('express-app.ts serves its own routes and the mounted chat endpoints, streams uncompressed', async () => {
    const port = await freePort();
    const { child, output } = await serve('express-app.ts', { ...env, PORT: String(port) }, /listening on http:\/\/127\.0\.0\.1:\d+/);
    const base = `http://127.0.0.1:${port}`;
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ ok: true });

    const body = JSON.stringify({ messages: [{ role: 'user', content: 'Hi' }] });
    const headers = { 'content-type': 'application/json', 'accept-encoding': 'gzip' };
    const sse = await fetch(`${base}/api/chat/sse`, { method: 'POST', headers, body });
    expect(sse.status).toBe(200);
    expect(sse.headers.get('content-encoding')).toBeNull();
    expect(sse.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(sse.headers.get('access-control-allow-origin')).toBe('*');
    expect(expectContractChunks(dataOf(await sse.text()))).toMatch(/^关于「Hi」，/);

    const json = await fetch(`${base}/api/chat/json`, { method: 'POST', headers, body });
    expect(json.status).toBe(200);
    expect(await json.json()).toMatchObject({ done: true, message: { role: 'assistant', content: expect.stringMatching(/^关于「Hi」，/) } });

    const refused = await fetch(`${base}/api/chat/stream`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' });
    expect(refused.status).toBe(415);
    expect(await refused.text()).toContain('"code":"unsupported_media_type"');

    await stop(child);
    expect(output()).toMatch(/^\{"chat":"\/chat\/sse","status":200,"ms":\d+,"chunks":\d+\}$/m);
    expect(output()).toMatch(/^POST \/api\/chat\/json 200$/m);
  });
});
