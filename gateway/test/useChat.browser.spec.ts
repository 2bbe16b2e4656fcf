import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { installedToolProject } from '../../test/helpers/packedPackage';
import { rawRequest } from '../../test/helpers/rawRequest';
import { expectJsonAnswer } from '../../test/helpers/wireAssertions';
import { CHROMIUM } from '../../test/setup/CHROMIUM';
import { requireTool } from '../../test/setup/requireTool';
import { startGateway, type RunningGateway } from '../src/startGateway';

/**
 * `useChat` in a real browser: the React page of `useChatPage.ts` (`@ai-sdk/react`'s `useChat` with ai's
 * `DefaultChatTransport`, bundled here by esbuild, no network) served from its own origin next to the gateway (as a
 * Vite or Next.js front end is; the gateway allows it with `corsOrigins`), in Chromium, against the emulator — with
 * the installed `ai` 5 and `@ai-sdk/react` 2, then with `ai` 6 and `@ai-sdk/react` 3 installed by npm into a temporary
 * project (the page bundled against them; React is the repository's 19).
 */

/** The AI SDK versions the page is bundled with: the repository's, and the next major from npm. */
const VERSIONS: ReadonlyArray<{ name: string; install?: readonly string[] }> = [
  { name: 'ai 5 and @ai-sdk/react 2 (installed)' },
  { name: 'ai 6 and @ai-sdk/react 3 (from npm)', install: ['ai@6', '@ai-sdk/react@3'] },
];

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const HTML = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>useChat on chatflux</title><style>body{font:15px system-ui,sans-serif;max-width:760px;margin:24px auto;padding:0 16px}.message{border-top:1px solid #ddd;padding:8px 0}.reasoning{color:#777;font-style:italic;white-space:pre-wrap}.text{white-space:pre-wrap}.tool{background:#f4f4f4;padding:6px}#error{color:#b00}input{width:60%}</style></head><body><div id="root"></div><script type="module" src="/page.js"></script></body></html>';

/** A package's directory as this repository resolves it. */
const packageDir = (name: string): string => dirname(require.resolve(`${name}/package.json`));

/**
 * The page's script: `useChatPage.ts` with React, `@ai-sdk/react` and `ai`, in one ES module; `project`: a project
 * whose `ai` and `@ai-sdk/react` replace the repository's (one React: the repository's).
 */
async function bundlePage(project?: string): Promise<string> {
  const alias =
    project === undefined
      ? undefined
      : {
          ai: join(project, 'node_modules', 'ai'),
          '@ai-sdk/react': join(project, 'node_modules', '@ai-sdk', 'react'),
          react: packageDir('react'),
          'react-dom': packageDir('react-dom'),
        };
  const result = await build({
    ...(alias === undefined ? {} : { alias }),
    entryPoints: [join(__dirname, 'useChatPage.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    define: { 'process.env.NODE_ENV': '"production"' },
    minify: true,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

/** A static server for the page: `/` and `/page.js`. */
async function servePage(script: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/page.js') === true) return void res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(script);
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(HTML);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe.each(VERSIONS)('useChat on the gateway, in Chromium: $name', ({ install }) => {
  let emulator: Emulator;
  let gateway: RunningGateway;
  let site: { url: string; close(): Promise<void> };
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  let chats = 0;

  beforeAll(async () => {
    const executablePath = requireTool(CHROMIUM);
    emulator = await startEmulator({ dialect: 'deepseek', seed: 17 });
    const project = install === undefined ? undefined : await installedToolProject('ai-sdk-next', install);
    const script = await bundlePage(project);
    if (project !== undefined) expect(script).toContain('6.0.'); // ai 6's version string is in the bundle
    site = await servePage(script);
    gateway = await startGateway(
      { port: 0, host: '127.0.0.1', provider: 'openai-compatible', baseUrl: emulator.url, gatewayKeys: [], heartbeatMs: 15_000, corsOrigins: [site.url] },
      { log: () => undefined, client: { model: 'deepseek-chat', retry: 0 } },
    );
    profile = mkdtempSync(join(tmpdir(), 'chatflux-usechat-'));
    context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: ARGS, viewport: { width: 900, height: 640 } });
    page = context.pages()[0] ?? (await context.newPage());
  }, 240_000);

  afterAll(async () => {
    await context?.close();
    await gateway?.close(0);
    await site?.close();
    await emulator?.close();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
  });

  beforeEach(() => emulator.setScenario());

  /** Opens the page on a new chat; `options`: its query (`model`, `resume`, `tools`). */
  const open = async (options: Record<string, string> = {}): Promise<string> => {
    const chat = `chat-${++chats}`;
    const query = new URLSearchParams({ api: `${gateway.url}/chat/ui`, chat, ...options });
    await page.goto(`${site.url}/?${query.toString()}`);
    await page.waitForSelector('#status');
    return chat;
  };
  const ask = async (prompt: string): Promise<void> => {
    await page.fill('#prompt', prompt);
    await page.click('#send');
  };
  const status = (): Promise<string> => page.evaluate(() => document.getElementById('status')?.textContent ?? '');
  const untilReady = (timeout = 20_000): Promise<unknown> =>
    page.waitForFunction(() => document.getElementById('status')?.textContent === 'ready' && document.querySelector('.message[data-role="assistant"]') !== null, undefined, { timeout });
  /** The assistant messages' parts as the page shows them. */
  const shown = (): Promise<Array<{ text: string; reasoning: string; tools: string[] }>> =>
    page.evaluate(() =>
      Array.from(document.querySelectorAll('.message[data-role="assistant"]')).map((message) => ({
        text: Array.from(message.querySelectorAll('.text')).map((part) => part.textContent ?? '').join(''),
        reasoning: Array.from(message.querySelectorAll('.reasoning')).map((part) => part.textContent ?? '').join(''),
        tools: Array.from(message.querySelectorAll('.tool')).map((part) => part.getAttribute('data-state') ?? ''),
      })),
    );
  const jsonAnswer = async (model: string, prompt: string) =>
    expectJsonAnswer(await rawRequest(`${gateway.url}/chat/json`, { body: { model, messages: [{ role: 'user', content: prompt }] } }));

  it('renders the streamed text and reasoning as they arrive: /chat/json\'s answer', async () => {
    const prompt = 'Explain backpressure in one paragraph.';
    emulator.setScenario('pace=10;tokens=80');
    await open({ model: 'deepseek-reasoner' });
    await page.evaluate(() => {
      const lengths: number[] = [];
      Object.assign(window, { lengths });
      const root = document.getElementById('messages') as HTMLElement;
      new MutationObserver(() => lengths.push(root.querySelector('.message[data-role="assistant"] .text')?.textContent?.length ?? 0)).observe(root, { childList: true, characterData: true, subtree: true });
    });
    await ask(prompt);
    await untilReady();
    const lengths = await page.evaluate(() => (window as unknown as { lengths: number[] }).lengths);
    expect(new Set(lengths.filter((n) => n > 0)).size).toBeGreaterThanOrEqual(5); // it grew as the parts came
    const [answer] = await shown();
    const json = await jsonAnswer('deepseek-reasoner', prompt);
    expect(answer?.text).toBe(json.message.content);
    expect(answer?.reasoning).toBe(json.message.reasoning_content);
    expect(answer?.reasoning.length).toBeGreaterThan(0);
    expect(await page.$('#error')).toBeNull();
    // docs/img/usechat.png: `CHATFLUX_SCREENSHOT=1 npx jest gateway/test/useChat.browser -t renders` rewrites it (with
    // CJK and emoji fonts installed, e.g. Debian's fonts-wqy-microhei and fonts-noto-color-emoji).
    if (process.env['CHATFLUX_SCREENSHOT'] === '1' && install === undefined) await page.locator('main').screenshot({ path: join(__dirname, '../../docs/img/usechat.png') });
  }, 60_000);

  it('stop() closes the upstream request (the emulator sees it end early), and the text stops growing', async () => {
    emulator.setScenario('pace=20;tokens=100000');
    await open({ model: 'deepseek-chat' });
    const before = emulator.requests.length;
    await ask('Tell me a very long story.');
    const upstream = await emulator.waitForRequest((request) => request.seq > before);
    await page.waitForFunction(() => (document.querySelector('.message[data-role="assistant"] .text')?.textContent?.length ?? 0) > 20, undefined, { timeout: 15_000 });
    await page.click('#stop');
    await upstream.closed;
    expect(upstream.closedEarly).toBe(true);
    expect(upstream.completed).toBe(false);
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'ready');
    const length = (await shown())[0]?.text.length ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await shown())[0]?.text.length).toBe(length);
  }, 30_000);

  it('completes a client-side tool round trip: onToolCall + addToolResult, then the answer', async () => {
    await open({ model: 'deepseek-chat', tools: '1' });
    const before = emulator.requests.length;
    await ask('What is the weather in Paris?');
    await page.waitForFunction(
      () => document.getElementById('status')?.textContent === 'ready' && (document.querySelector('.message[data-role="assistant"] .text')?.textContent?.length ?? 0) > 0,
      undefined,
      { timeout: 20_000 },
    );
    const [answer] = await shown();
    expect(answer?.tools).toEqual(['output-available']);
    const requests = emulator.requests.filter((request) => request.seq > before);
    expect(requests).toHaveLength(2); // the call, then the answer to the tool's result
    const messages = (requests[1]?.body as { messages: Array<{ role: string; content?: unknown; tool_calls?: unknown[] }> }).messages;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages[1]?.tool_calls).toHaveLength(1);
    expect(JSON.parse(String(messages[2]?.content))).toEqual({ city: expect.any(String), forecast: 'sunny, 21 °C' });
    expect(await status()).toBe('ready');
  }, 40_000);

  it('after a page reload mid-answer, resume shows the whole answer once: one upstream request', async () => {
    const prompt = 'Describe the sea.';
    emulator.setScenario('pace=10;tokens=300');
    const chat = await open({ model: 'deepseek-chat', resume: '1' });
    const before = emulator.requests.length;
    await ask(prompt);
    await page.waitForFunction(() => (document.querySelector('.message[data-role="assistant"] .text')?.textContent?.length ?? 0) > 10, undefined, { timeout: 15_000 });
    const beforeReload = (await shown())[0]?.text ?? '';
    await page.reload();
    expect(new URL(page.url()).searchParams.get('chat')).toBe(chat);
    await untilReady(30_000);
    const answers = await shown();
    expect(answers).toHaveLength(1);
    expect(emulator.requests.length - before).toBe(1); // resumed from the log, never asked again
    const json = await jsonAnswer('deepseek-chat', prompt);
    expect(answers[0]?.text).toBe(json.message.content);
    expect(json.message.content.startsWith(beforeReload)).toBe(true);
    expect(json.message.content.length).toBeGreaterThan(beforeReload.length);
  }, 60_000);

  // The gateway's page does not use the SDK: once is enough.
  if (install === undefined) it("the gateway's own useChat protocol page (/ui, no React): streams an answer, and after a reload mid-answer resumes it once", async () => {
    const prompt = 'Describe the river.';
    emulator.setScenario('pace=10;tokens=300');
    await page.goto(`${gateway.url}/`);
    await page.click('#ui-link');
    await page.waitForURL(`${gateway.url}/ui`);
    await page.fill('#prompt', prompt);
    const before = emulator.requests.length;
    await page.click('#send');
    await page.waitForFunction(() => (document.querySelector('.message[data-role="assistant"] .text')?.textContent?.length ?? 0) > 10, undefined, { timeout: 15_000 });
    await page.reload();
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'ready' && document.querySelector('.message[data-role="assistant"]') !== null, undefined, { timeout: 30_000 });
    const answers = await shown();
    expect(answers).toHaveLength(1);
    expect(emulator.requests.length - before).toBe(1);
    expect(answers[0]?.text).toBe((await jsonAnswer('deepseek-chat', prompt)).message.content);
    await page.click('#clear');
  }, 60_000);

  it('shows a cut upstream as useChat\'s error state, never as a complete message', async () => {
    emulator.setScenario('pace=10;tokens=200;reset-after=30');
    await open({ model: 'deepseek-chat' });
    await ask('Tell me more.');
    await page.waitForSelector('#error', { state: 'visible', timeout: 20_000 });
    expect(await status()).toBe('error');
    expect((await page.textContent('#error')) ?? '').toMatch(/cut mid-answer/);
    const [answer] = await shown();
    expect(answer?.text.length).toBeGreaterThan(0); // what came before the cut, shown as it is
  }, 30_000);
});
