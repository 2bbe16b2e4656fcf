/**
 * The worst case of one request through a route (issue 28, "cost amplification"): how many upstream requests, and
 * how long, one `stream()` call of a 3-target route costs against a primary that cuts every answer after a little
 * text and fallbacks that refuse every request — with the defaults, and with the largest settings the gateway's route
 * schema allows (`retries` 10, `maxContinuations` 10); and one `json()` call whose targets all cut and take no prefill
 * (every cut restarted). Loopback only (emulators on 127.0.0.1), bounded, stops itself.
 * With `--silent`, also one call of a client with its default deadlines (no route) against a provider that accepts
 * the request and never answers, hanging up after 120 s (takes as long as the defaults make it wait).
 *
 * Run: `npx tsx bench/worstCaseRoute.ts [--silent]`
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lastValueFrom, toArray, type Observable } from 'rxjs';
import { createChatClient } from '../src/client/createChatClient';
import { createChatRoute, type ChatRouteConfig } from '../src/client/createChatRoute';
import { startEmulator } from '../src/testing/startEmulator';

interface Case {
  name: string;
  fallbacks: string;
  route: Partial<ChatRouteConfig>;
  retry?: number;
  /** `json()`, over targets that take no prefill: every cut answer is restarted (instead of `stream()` continued). */
  restart?: boolean;
}

const CASES: Case[] = [
  { name: 'defaults, fallbacks 503 + Retry-After: 0', fallbacks: 'status=503;retry-after=0' },
  { name: 'largest schema settings (retries 10, maxContinuations 10), 503 + Retry-After: 0', fallbacks: 'status=503;retry-after=0', route: { maxContinuations: 10 }, retry: 10 },
  { name: 'defaults, fallbacks 429 + Retry-After: 3', fallbacks: 'status=429;retry-after=3' },
  { name: 'largest settings, maxAttempts 50 included, 503 + Retry-After: 0', fallbacks: 'status=503;retry-after=0', route: { maxContinuations: 10, maxAttempts: 50 }, retry: 10 },
  { name: 'json(), every target cutting, no prefill: restarts (maxContinuations 10)', fallbacks: 'tokens=60;pace=1;reset-after=20', route: { maxContinuations: 10 }, restart: true },
].map((c) => ({ route: {}, ...c }));

async function main(): Promise<void> {
  for (const c of CASES) {
    const primary = await startEmulator({ dialect: 'deepseek', seed: 1, scenario: 'tokens=60;pace=1;reset-after=20' });
    const fallbacks = await Promise.all([0, 1].map(() => startEmulator({ dialect: 'openai', seed: 1, scenario: c.fallbacks })));
    const all = [primary, ...fallbacks];
    const route = createChatRoute({
      ...c.route,
      breaker: false,
      onEvent: process.env.DEBUG ? (e) => console.log(JSON.stringify(e)) : undefined,
      targets: all.map((e, i) => ({ baseUrl: e.url, model: 'deepseek-chat', name: `t${i}`, prefill: c.restart === true ? (false as const) : ('deepseek' as const), ...(c.retry === undefined ? {} : { retry: c.retry }) })),
    });
    const request = { messages: [{ role: 'user' as const, content: 'hi' }] };
    const started = Date.now();
    const call: Observable<unknown> = c.restart === true ? route.json(request) : route.stream(request).pipe(toArray());
    const outcome = await lastValueFrom(call).then(
      () => 'answer',
      (error: { code?: string }) => `error ${error.code ?? String(error)}`,
    );
    const ms = Date.now() - started;
    const calls = all.reduce((n, e) => n + e.requests.length, 0);
    console.log(`${c.name}: ${calls} upstream requests, ${(ms / 1000).toFixed(1)} s, ${outcome}`);
    await route.close();
    await Promise.all(all.map((e) => e.close()));
  }
}

/** A client with the default deadlines against a provider that never answers and hangs up after 120 s. */
async function silentProvider(): Promise<void> {
  let requests = 0;
  const server = createServer((req) => {
    requests++;
    setTimeout(() => req.socket.destroy(), 120_000);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = createChatClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, model: 'm' });
  const started = Date.now();
  const outcome = await lastValueFrom(client.json({ messages: [{ role: 'user', content: 'hi' }] })).then(
    () => 'answer',
    (error: { code?: string; phase?: string }) => `error ${error.code ?? String(error)}${error.phase === undefined ? '' : `:${error.phase}`}`,
  );
  console.log(`no route, default deadlines, a provider that never answers: ${requests} upstream requests, ${((Date.now() - started) / 1000).toFixed(1)} s, ${outcome}`);
  await client.close();
  server.closeAllConnections();
  server.close();
}

void main().then(() => (process.argv.includes('--silent') ? silentProvider() : undefined));
