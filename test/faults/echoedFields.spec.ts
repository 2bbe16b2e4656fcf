/**
 * Secrets echoed in the strings a gateway passes on (issue 27, item 4): an upstream that quotes the key it was sent in
 * every chunk's `id`, `model` and `system_fingerprint` must not get it to a client body on any of the four endpoints,
 * to `/metrics`, or to a span attribute. One redaction pass in `decodeChunk` (once per distinct value), and the
 * telemetry's own over its attributes.
 */
import { loadGatewayConfig } from '../../gateway/src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../../gateway/src/startGateway';
import { inMemoryTelemetry, type InMemoryTelemetry } from '../helpers/inMemoryTelemetry';
import { rawRequest } from '../helpers/rawRequest';
import { startKeyEchoUpstream, type KeyEchoUpstream } from '../helpers/startKeyEchoUpstream';

/** Not shaped like a key (no `sk-`): only the literal secret the gateway knows can catch it. */
const KEY = 'upstream-Echo-Key-4f9d2c7a61b0e3';
const MODEL = 'gpt-4o#in-fields';
const BODY = { messages: [{ role: 'user', content: 'hi' }] };
const REQUESTS: Array<[string, Record<string, unknown>]> = [
  ['/chat/json', BODY],
  ['/chat/stream', BODY],
  ['/chat/sse', BODY],
  ['/v1/chat/completions', { ...BODY, model: MODEL }],
  ['/v1/chat/completions', { ...BODY, model: MODEL, stream: true }],
];
/** A route's answer names the model its target's upstream wrote: on /chat/stream and /chat/sse too (the done chunk). */
const ROUTED: Array<[string, Record<string, unknown>]> = REQUESTS.map(([path, body]) => [
  path,
  { ...body, model: 'echo' },
]);

let upstream: KeyEchoUpstream;
let gateway: RunningGateway;
let traced: RunningGateway;
let routed: RunningGateway;
let telemetry: InMemoryTelemetry;
beforeAll(async () => {
  upstream = await startKeyEchoUpstream();
  const config = loadGatewayConfig({
    PORT: '0',
    CHATFLUX_BASE_URL: upstream.url,
    CHATFLUX_API_KEY: KEY,
    CHATFLUX_MODEL: MODEL,
    CHATFLUX_HEARTBEAT_MS: '0',
  });
  gateway = await startGateway(config, { log: () => undefined });
  const routes = JSON.stringify({
    echo: { targets: [{ baseUrl: upstream.url, model: MODEL, apiKeyEnv: 'ECHO_UPSTREAM_KEY' }] },
  });
  routed = await startGateway(
    loadGatewayConfig({ PORT: '0', CHATFLUX_ROUTES: routes, ECHO_UPSTREAM_KEY: KEY, CHATFLUX_HEARTBEAT_MS: '0' }),
    { log: () => undefined },
  );
  telemetry = inMemoryTelemetry();
  // The same gateway with its client's spans and metrics kept in memory (an in-memory exporter, not a mock).
  traced = await startGateway(config, {
    log: () => undefined,
    client: { telemetry: { tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider } },
  });
});
afterAll(async () => {
  await gateway.close(0);
  await traced.close(0);
  await routed.close(0);
  await telemetry.shutdown();
  await upstream.close();
});

describe("an upstream echoing the gateway's key in a chunk's id, model and system_fingerprint", () => {
  it.each([
    ...REQUESTS.map(([path, body]) => ['direct', path, body] as const),
    ...ROUTED.map(([path, body]) => ['routed', path, body] as const),
  ])('%s %s %j: the body never carries the key', async (which, path, body) => {
    const before = upstream.keysEchoed.length;
    const res = await rawRequest(`${(which === 'direct' ? gateway : routed).url}${path}`, {
      body,
      signal: AbortSignal.timeout(10_000),
    });
    expect(res.status).toBe(200);
    expect(upstream.keysEchoed.slice(before)).toEqual([KEY]); // the upstream did quote the key
    expect(res.body).toContain('Hello, world'.slice(0, 5));
    expect(res.body).not.toContain(KEY);
    expect(res.body).not.toContain(KEY.slice(0, 12));
  });

  it('the scrubbed id, model and system_fingerprint are passed on where the endpoints carry them (the scans are not vacuous)', async () => {
    const json = await rawRequest(`${gateway.url}/chat/json`, { body: BODY });
    expect(JSON.parse(json.body)).toMatchObject({ id: 'chatcmpl-[redacted]', model: 'model-[redacted]' });
    const openai = await rawRequest(`${gateway.url}/v1/chat/completions`, { body: { ...BODY, model: MODEL } });
    expect(JSON.parse(openai.body)).toMatchObject({ id: 'chatcmpl-[redacted]', model: 'model-[redacted]' });
    for (const path of ['/chat/stream', '/chat/sse']) {
      const res = await rawRequest(`${routed.url}${path}`, { body: { ...BODY, model: 'echo' } });
      expect(res.body).toMatch(/"done":true[^\n]*"model":"model-\[redacted\]"/);
    }
  });

  it('/metrics carries no key (the response model is `other`)', async () => {
    const text = (await rawRequest(`${gateway.url}/metrics`)).body;
    expect(text).toMatch(
      /^gen_ai_client_operation_duration_count\{[^}]*gen_ai_request_model="gpt-4o#in-fields"[^}]*gen_ai_response_model="other"/m,
    );
    expect(text).not.toContain(KEY);
  });

  it("no span attribute carries the key: the response's id and model are there, redacted", async () => {
    // A sampled trace from the caller: the gateway's spans record (without one and without OTLP they are not sampled).
    const headers = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    for (const [path, body] of REQUESTS)
      await rawRequest(`${traced.url}${path}`, { body, headers, signal: AbortSignal.timeout(10_000) });
    const spans = telemetry.spans().filter((span) => span.name.startsWith('chat '));
    expect(spans).toHaveLength(REQUESTS.length);
    for (const span of spans) {
      expect(span.attributes).toMatchObject({
        'gen_ai.response.id': 'chatcmpl-[redacted]',
        'gen_ai.response.model': 'model-[redacted]',
      });
      expect(
        JSON.stringify({ name: span.name, attributes: span.attributes, events: span.events, status: span.status }),
      ).not.toContain(KEY);
    }
    const points = await telemetry.histogram('gen_ai.client.operation.duration');
    expect(points.length).toBeGreaterThan(0);
    expect(JSON.stringify(points.map((point) => point.attributes))).not.toContain(KEY);
  });
});
