/**
 * Mounting the chat endpoints in an existing Express app: its own routes and middleware (compression, a request
 * logger, CORS-like headers) stay as they are; chatflux adds `POST /api/chat/{json,stream,sse}`.
 *
 * Streams are not buffered by `compression`: chatflux sends `Cache-Control: no-transform` on them (which
 * `compression` honours) and flushes after every write; `/chat/json` and the app's own routes are compressed
 * as usual (above `compression`'s 1 kB threshold).
 *
 * Run: `npx tsx examples/express-app.ts` with CHATFLUX_BASE_URL (and CHATFLUX_API_KEY) of an OpenAI-compatible API.
 */
import compression from 'compression';
import express from 'express';
import { createChatClient, type ChatRequestLog } from 'chatflux';
import { chatRouter } from 'chatflux/express';

const client = createChatClient({
  provider: 'openai-compatible',
  baseUrl: process.env.CHATFLUX_BASE_URL ?? 'https://api.deepseek.com',
  apiKey: process.env.CHATFLUX_API_KEY,
  model: process.env.CHATFLUX_MODEL ?? 'deepseek-chat',
});

const app = express();
app.disable('x-powered-by');
app.use(compression());
app.use((req, res, next) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.on('finish', () => console.log(`${req.method} ${req.originalUrl} ${res.statusCode}`));
  next();
});

// The app's own routes.
app.get('/healthz', (_req, res) => void res.json({ ok: true }));
app.get('/api/version', (_req, res) => void res.json({ name: 'my-app', chat: client.toString() }));

// The chat endpoints under /api, with downstream keys when configured and one structured log line per request.
app.use(
  '/api',
  chatRouter({
    client,
    apiKeys: process.env.APP_KEYS?.split(',') ?? [],
    heartbeatMs: 10_000,
    log: (entry: ChatRequestLog) => console.log(JSON.stringify({ chat: entry.endpoint, status: entry.status, ms: entry.durationMs, chunks: entry.chunks })),
  }),
);

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : '?'}`);
});

// Graceful stop: finish the response in flight, then close the client's connection pool.
process.once('SIGTERM', () => server.close(() => void client.close()));
