/**
 * The gateway's observability: GET /metrics (Prometheus text: the GenAI histograms with the request's model, requests
 * by endpoint and status, streams in flight, the upstream pool, heartbeats), its own Bearer token, the client's W3C
 * traceparent continued into the upstream request, and one pino JSON line per request with the trace id.
 */
import { Writable } from 'node:stream';
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { startGateway, type RunningGateway } from '../src/startGateway';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawRequest } from '../../test/helpers/rawRequest';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const TRACEPARENT = `00-${TRACE_ID}-b7ad6b7169203331-01`;
const BODY = { messages: [{ role: 'user', content: 'hi' }] };

let emulator: Emulator;
let gateway: RunningGateway;
const lines: string[] = [];
beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 9, paceMs: 5 }); // paced: its events come in reads of their own
  const config = loadGatewayConfig({ PORT: '0', CHATFLUX_BASE_URL: emulator.url, CHATFLUX_MODEL: 'deepseek-chat', CHATFLUX_METRICS_TOKEN: 'metrics-secret', CHATFLUX_HEARTBEAT_MS: '20' });
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      done();
    },
  });
  gateway = await startGateway(config, { logStream });
});
afterAll(async () => {
  await gateway.close(0);
  await emulator.close();
});

const metrics = async (): Promise<string> => {
  const res = await rawRequest(`${gateway.url}/metrics`, { headers: { Authorization: 'Bearer metrics-secret' } });
  expect(res.status).toBe(200);
  return res.body;
};

describe('gateway observability', () => {
  it("continues the client's traceparent into the upstream request, and logs one JSON line with the trace id", async () => {
    const res = await rawRequest(`${gateway.url}/chat/json`, { body: BODY, headers: { traceparent: TRACEPARENT } });
    expect(res.status).toBe(200);
    const upstream = emulator.requests.at(-1)?.headers['traceparent'];
    expect(upstream).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    expect(upstream).not.toBe(TRACEPARENT); // a child span's id, not the client's
    await new Promise((resolve) => setTimeout(resolve, 20));
    const entry = JSON.parse(lines.at(-1) ?? '{}') as Record<string, unknown>;
    expect(entry).toMatchObject({ level: 'info', msg: 'request', endpoint: '/chat/json', status: 200, trace_id: TRACE_ID, model: 'deepseek-chat' });
    expect(typeof entry['time']).toBe('string');
    expect(entry['span_id']).toMatch(/^[0-9a-f]{16}$/);
  });

  it("continues the client's traceparent on POST /v1/chat/completions too (streamed), with the trace id in its log line", async () => {
    const res = await rawRequest(`${gateway.url}/v1/chat/completions`, { body: { ...BODY, stream: true }, headers: { traceparent: TRACEPARENT } });
    expect(res.status).toBe(200);
    expect(res.body.endsWith('data: [DONE]\n\n')).toBe(true);
    const upstream = emulator.requests.at(-1)?.headers['traceparent'];
    expect(upstream).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const entry = JSON.parse(lines.at(-1) ?? '{}') as Record<string, unknown>;
    expect(entry).toMatchObject({ msg: 'request', status: 200, trace_id: TRACE_ID });
  });

  it('GET /metrics shows the GenAI histograms with the model, requests by endpoint and status, the pool and heartbeats', async () => {
    await rawRequest(`${gateway.url}/chat/stream`, { body: BODY });
    const sse = await rawRequest(`${gateway.url}/chat/sse`, { body: { ...BODY, model: 'deepseek-chat#queue=150' } }); // silent 150 ms: heartbeats
    expect(sse.body).toContain(': ping');
    const text = await metrics();
    expect(text).toMatch(/^gen_ai_client_token_usage_bucket\{[^}]*gen_ai_request_model="deepseek-chat"[^}]*gen_ai_token_type="input"/m);
    expect(text).toMatch(/^gen_ai_client_operation_time_to_first_chunk_bucket\{[^}]*gen_ai_request_model="deepseek-chat"/m);
    expect(text).toMatch(/^gen_ai_client_operation_duration_count\{/m);
    expect(text).toMatch(/^gen_ai_client_operation_time_per_output_chunk_count\{/m);
    expect(text).toMatch(/^chatflux_gateway_requests_total\{[^}]*http_route="\/chat\/json"[^}]*http_response_status_code="200"[^}]*\} [1-9]/m);
    expect(text).toMatch(/^chatflux_gateway_streams_in_flight\{[^}]*http_route="\/chat\/sse"[^}]*\} 0/m);
    expect(text).toMatch(/^chatflux_upstream_connections_in_use\{?[^}]*\}? 0/m);
    expect(text).toMatch(/^chatflux_upstream_connections_waiting\{?[^}]*\}? 0/m);
    expect(text).toMatch(/^chatflux_gateway_heartbeats_total\{?[^}]*\}? [1-9]/m);
  });

  it('counts every heartbeat written, by endpoint: /chat/sse pings and the OpenAI stream keep-alives', async () => {
    const heartbeatsOf = (text: string, route: string): number => {
      const line = text.split('\n').find((l) => l.startsWith('chatflux_gateway_heartbeats_total{') && l.includes(`http_route="${route}"`));
      return line === undefined ? 0 : Number(line.split(' ').at(-1));
    };
    const before = await metrics();
    const sse = await rawRequest(`${gateway.url}/chat/sse`, { body: { ...BODY, model: 'deepseek-chat#queue=150' } });
    const openai = await rawRequest(`${gateway.url}/v1/chat/completions`, { body: { ...BODY, model: 'deepseek-chat#queue=150', stream: true } });
    const pings = sse.body.split(': ping\n\n').length - 1;
    const keepAlives = openai.body.split(': keep-alive\n\n').length - 1;
    expect(pings).toBeGreaterThan(0);
    expect(keepAlives).toBeGreaterThan(0);
    const after = await metrics();
    expect(heartbeatsOf(after, '/chat/sse') - heartbeatsOf(before, '/chat/sse')).toBe(pings);
    expect(heartbeatsOf(after, '/v1/chat/completions') - heartbeatsOf(before, '/v1/chat/completions')).toBe(keepAlives);
  });

  it("names only configured models in the metrics: any other request model, and a provider's error type, never become labels (`other`, `upstream_http`)", async () => {
    // The emulator answers with the model asked for; a provider's own error type must not become a label either.
    await rawRequest(`${gateway.url}/chat/json`, { body: { ...BODY, model: 'not-configured-7c1f' } });
    await rawRequest(`${gateway.url}/chat/json`, { body: { ...BODY, model: 'deepseek-chat#status=400;error-type=provider_type_3e9a' } });
    const text = await metrics();
    expect(text).not.toContain('not-configured-7c1f');
    expect(text).not.toContain('provider_type_3e9a');
    expect(text).toMatch(/^gen_ai_client_operation_duration_count\{[^}]*gen_ai_request_model="other"[^}]*gen_ai_response_model="other"/m);
    expect(text).toMatch(/^gen_ai_client_operation_duration_count\{[^}]*gen_ai_request_model="other"[^}]*error_type="upstream_http"/m);
    expect(text).toMatch(/^chatflux_gateway_requests_total\{[^}]*http_response_status_code="502"[^}]*error_type="upstream_http"/m);
  });

  it('GET /metrics asks for its own token when CHATFLUX_METRICS_TOKEN is set', async () => {
    expect((await rawRequest(`${gateway.url}/metrics`)).status).toBe(401);
    expect((await rawRequest(`${gateway.url}/metrics`, { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
  });
});

it('the allowed models (CHATFLUX_ALLOWED_MODELS) are named in the metrics as the default model is', async () => {
  const config = loadGatewayConfig({ PORT: '0', CHATFLUX_BASE_URL: emulator.url, CHATFLUX_MODEL: 'deepseek-chat', CHATFLUX_ALLOWED_MODELS: 'deepseek-reasoner-x,deepseek-chat' });
  const allowed = await startGateway(config, { log: () => undefined });
  try {
    expect((await rawRequest(`${allowed.url}/chat/json`, { body: { ...BODY, model: 'deepseek-reasoner-x' } })).status).toBe(200);
    const text = (await rawRequest(`${allowed.url}/metrics`)).body;
    expect(text).toMatch(/^gen_ai_client_operation_duration_count\{[^}]*gen_ai_request_model="deepseek-reasoner-x"[^}]*gen_ai_response_model="deepseek-reasoner-x"/m);
  } finally {
    await allowed.close(0);
  }
});
