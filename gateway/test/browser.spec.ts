import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';
import { startGateway, type RunningGateway } from '../src/startGateway';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { promptBound } from '../../test/helpers/promptBound';
import { rawRequest } from '../../test/helpers/rawRequest';
import { startRetryStrippingProxy, type RetryStrippingProxy } from '../../test/helpers/startRetryStrippingProxy';
import { waitFor } from '../../test/helpers/streamSources';
import { expectJsonAnswer } from '../../test/helpers/wireAssertions';
import { CHROMIUM } from '../../test/setup/CHROMIUM';
import { requireTool } from '../../test/setup/requireTool';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** The spec's client-side snippet, verbatim. */
const SPEC_SNIPPET = `const eventSource = new EventSource('/chat/sse');

eventSource.onmessage = (event) => {
  if (event.data === '[DONE]') {
    console.log('Stream ended');
    eventSource.close(); // Close the connection
  } else {
    const data = JSON.parse(event.data);
    console.log(data.message.content); // Process chunk
  }
};

eventSource.onerror = (error) => {
  console.error('SSE error:', error);
  eventSource.close(); // Close on error
};`;

describe('the demo page in a real browser (chromium via playwright-core)', () => {
  let emulator: Emulator;
  let gateway: RunningGateway;
  let context: BrowserContext;
  let page: Page;
  let profile: string;

  beforeAll(async () => {
    // Found (CHROME_PATH, PATH, the usual places) or installed by the global setup; else one line: what to install.
    const executablePath = requireTool(CHROMIUM);
    emulator = await startEmulator({ dialect: 'deepseek', seed: 11 });
    gateway = await startGateway(
      { port: 0, host: '127.0.0.1', provider: 'openai-compatible', baseUrl: emulator.url, gatewayKeys: [], heartbeatMs: 15_000 },
      { log: () => undefined, client: { model: 'deepseek-chat', retry: 0 } },
    );
    profile = mkdtempSync(join(tmpdir(), 'chatflux-chromium-'));
    context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: ARGS, viewport: { width: 960, height: 720 } });
    page = context.pages()[0] ?? (await context.newPage());
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await gateway?.close(0);
    await emulator?.close();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
  });

  beforeEach(async () => {
    emulator.setScenario();
    await page.goto(gateway.url);
  });

  /** Records every length the answer's text takes, as the page renders it. */
  const recordAnswerGrowth = (): Promise<void> =>
    page.evaluate(() => {
      const answer = document.getElementById('answer') as HTMLElement;
      const lengths: number[] = [];
      (window as unknown as { lengths: number[] }).lengths = lengths;
      new MutationObserver(() => lengths.push(answer.textContent?.length ?? 0)).observe(answer, { childList: true, characterData: true, subtree: true });
    });
  const lengths = (): Promise<number[]> => page.evaluate(() => (window as unknown as { lengths: number[] }).lengths);
  const text = (id: string): Promise<string> => page.evaluate((which) => document.getElementById(which)?.textContent ?? '', id);

  it('sends a prompt and shows the answer growing token by token, with the reasoning apart', async () => {
    const prompt = 'Explain backpressure in one paragraph.';
    const model = 'deepseek-reasoner';
    emulator.setScenario('pace=10;tokens=120');
    await page.fill('#prompt', prompt);
    await page.fill('#model', model);
    await recordAnswerGrowth();
    await page.click('#send');
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'done', undefined, { timeout: 20_000 });
    const seen = await lengths();
    const distinct = [...new Set(seen)].filter((n) => n > 0);
    expect(distinct.length).toBeGreaterThanOrEqual(5);
    expect(distinct).toEqual([...distinct].sort((a, b) => a - b));
    expect(await page.isVisible('#reasoning-box')).toBe(true);
    expect((await text('reasoning')).length).toBeGreaterThan(0);
    expect(await page.isVisible('#error')).toBe(false);
    // The same request over /chat/json gives the same text: the page rendered every chunk, in order.
    const json = expectJsonAnswer(await rawRequest(`${gateway.url}/chat/json`, { body: { model, messages: [{ role: 'user', content: prompt }] } }));
    expect(await text('answer')).toBe(json.message.content);
    expect(await text('reasoning')).toBe(json.message.reasoning_content);
    // The README's picture: `CHATFLUX_SCREENSHOT=1 npx jest gateway/test/browser` rewrites docs/screenshot.png (with
    // CJK and emoji fonts installed, e.g. Debian's fonts-noto-cjk and fonts-noto-color-emoji).
    if (process.env['CHATFLUX_SCREENSHOT'] === '1') {
      mkdirSync(join(__dirname, '../../docs'), { recursive: true });
      await page.screenshot({ path: join(__dirname, '../../docs/screenshot.png'), fullPage: true });
    }
  }, 40_000);

  it('stops a long answer with the Stop button, and the emulator sees the abort', async () => {
    const before = emulator.requests.length;
    await page.fill('#model', 'deepseek-chat#pace=40;tokens=100000');
    await page.click('#send');
    const upstream = await emulator.waitForRequest((r) => r.seq > before);
    await page.waitForFunction(() => (document.getElementById('answer')?.textContent?.length ?? 0) > 20, undefined, { timeout: 10_000 });
    await page.click('#stop');
    const stoppedAt = Date.now();
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'stopped');
    await upstream.closed;
    expect(Date.now() - stoppedAt).toBeLessThan(promptBound(2000));
    expect(upstream.closedEarly).toBe(true);
    expect(upstream.completed).toBe(false);
    const length = (await text('answer')).length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await text('answer')).length).toBe(length);
  }, 30_000);

  it('shows an upstream error', async () => {
    await page.fill('#model', 'deepseek-chat#status=500');
    await page.click('#send');
    await page.waitForSelector('#error', { state: 'visible' });
    expect(await text('error')).toMatch(/^Error \(.+\): .+/);
    expect(await text('status')).toBe('failed (HTTP 502)');
  });

  it('shows its final state right after an in-band error: failed, never "done"', async () => {
    emulator.setScenario('pace=20;error-event-at=3');
    const statuses: string[] = [];
    await page.exposeFunction('recordStatus', (status: string) => statuses.push(status));
    await page.evaluate(() => {
      const status = document.getElementById('status') as HTMLElement;
      new MutationObserver(() => void (window as unknown as { recordStatus(s: string): void }).recordStatus(status.textContent ?? '')).observe(status, { childList: true, characterData: true, subtree: true });
    });
    await page.click('#send');
    await page.waitForSelector('#error', { state: 'visible' });
    expect(await text('status')).toMatch(/^failed \(.+\)$/); // at once, with the error on screen
    await page.waitForFunction(() => (document.getElementById('send') as HTMLButtonElement).disabled === false);
    expect(await text('status')).toMatch(/^failed \(.+\)$/);
    expect(statuses).not.toContain('done');
  });

  it("runs the spec's EventSource snippet verbatim: chunks, [DONE], and an event: error", async () => {
    const messages: ConsoleMessage[] = [];
    page.on('console', (message) => messages.push(message));
    await page.evaluate(SPEC_SNIPPET);
    await waitFor(() => messages.some((m) => m.text() === 'Stream ended'), 15_000);
    const logged = messages.filter((m) => m.type() === 'log').map((m) => m.text());
    expect(logged.length).toBeGreaterThan(3);
    expect(logged.at(-1)).toBe('Stream ended');
    const demo = expectJsonAnswer(await rawRequest(`${gateway.url}/chat/json`, { body: { messages: [{ role: 'user', content: 'Hello! Please introduce yourself in a few sentences.' }] } }));
    expect(logged.slice(0, -1).join('')).toBe(demo.message.content);

    // The same snippet while the provider fails mid-stream: the browser dispatches the `event: error` frame to onerror.
    messages.length = 0;
    emulator.setScenario('error-event-at=3');
    await page.evaluate(SPEC_SNIPPET);
    await waitFor(() => messages.some((m) => m.type() === 'error' && m.text().startsWith('SSE error:')), 15_000);
    const errorMessage = messages.find((m) => m.type() === 'error');
    const event = await errorMessage?.args()[1]?.evaluate((e: Event) => ({ type: e.type, data: (e as MessageEvent<string>).data }));
    expect(event?.type).toBe('error');
    expect(JSON.parse(event?.data ?? '{}')).toMatchObject({ type: 'upstream_error' });
    expect(messages.filter((m) => m.type() === 'log').length).toBeGreaterThanOrEqual(1);
    page.removeAllListeners('console');
  }, 40_000);

  describe('an EventSource left open after [DONE] (the page never closes it)', () => {
    /** Longer than two of Chromium's default reconnect delays (3 s): a reconnect would have happened in it. */
    const WINDOW_MS = 8000;
    const Q = encodeURIComponent(JSON.stringify({ messages: [{ role: 'user', content: 'Say hi.' }] }));
    let proxy: RetryStrippingProxy | undefined;
    afterEach(async () => {
      await page.evaluate(() => (window as unknown as { source?: EventSource }).source?.close());
      await proxy?.close();
      proxy = undefined;
    });

    /** Opens an EventSource in the page that records its messages (data, last event id) and never closes it. */
    const openEventSource = (url: string): Promise<void> =>
      page.evaluate((at) => {
        const source = new EventSource(at);
        const seen: Array<{ data: string; lastEventId: string }> = [];
        Object.assign(window, { source, seen });
        source.onmessage = (event: MessageEvent<string>) => void seen.push({ data: event.data, lastEventId: event.lastEventId });
      }, url);
    const seen = (): Promise<Array<{ data: string; lastEventId: string }>> => page.evaluate(() => (window as unknown as { seen: Array<{ data: string; lastEventId: string }> }).seen);
    const readyState = (): Promise<number> => page.evaluate(() => (window as unknown as { source: EventSource }).source.readyState);
    const upstreamSince = (seq: number): number => emulator.requests.filter((request) => request.seq > seq).length;

    it('does not reconnect: the upstream sees one request', async () => {
      const before = emulator.requests.at(-1)?.seq ?? 0;
      await openEventSource(`/chat/sse?q=${Q}`);
      await page.waitForFunction(() => (window as unknown as { seen: Array<{ data: string }> }).seen.some((m) => m.data === '[DONE]'), undefined, { timeout: 15_000 });
      await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
      expect(upstreamSince(before)).toBe(1);
      const messages = await seen();
      expect(messages.filter((m) => m.data === '[DONE]')).toEqual([{ data: '[DONE]', lastEventId: 'done' }]);
      expect(await readyState()).toBe(0); // CONNECTING: its reconnect is a day away (and then gets 204)
    }, 40_000);

    it('told no retry (a proxy drops it), its reconnect gets 204 and it closes', async () => {
      proxy = await startRetryStrippingProxy(gateway.url);
      await page.goto(proxy.url); // the page from the proxy: its EventSource is same-origin
      const before = emulator.requests.at(-1)?.seq ?? 0;
      await openEventSource(`/chat/sse?q=${Q}`);
      await page.waitForFunction(() => (window as unknown as { source: EventSource }).source.readyState === 2, undefined, { timeout: 20_000 });
      expect((await seen()).at(-1)).toEqual({ data: '[DONE]', lastEventId: 'done' });
      const streams = (): Array<[string | string[] | undefined, number | undefined]> =>
        proxy!.proxied.filter((request) => request.url.startsWith('/chat/sse')).map((request) => [request.headers['last-event-id'], request.status]);
      expect(streams()).toEqual([
        [undefined, 200],
        ['done', 204],
      ]);
      await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
      expect(streams()).toHaveLength(2);
      expect(upstreamSince(before)).toBe(1);
    }, 40_000);
  });
});
