import { startServer } from './startServer';

/** A running {@link startKeyEchoUpstream}. */
export interface KeyEchoUpstream {
  /** The base URL: `${url}/chat/completions` is the endpoint. */
  url: string;
  /** The Bearer keys it received and quoted back, one per request. */
  keysEchoed: string[];
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

/** The error message of the upstream, quoting the caller's key as careless providers do. */
const leak = (key: string): string => `Incorrect API key provided: ${key}. You can find your API key in the console.`;

const contentFrame = (content: string): string =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

/** A whole answer whose every chunk quotes the key in `id`, `model` and `system_fingerprint`. */
const fieldsAnswer = (key: string): string => {
  const frame = (fields: Record<string, unknown>): string =>
    `data: ${JSON.stringify({ id: `chatcmpl-${key}`, object: 'chat.completion.chunk', created: 1, model: `model-${key}`, system_fingerprint: `fp_${key}`, ...fields })}\n\n`;
  return (
    frame({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }] }) +
    frame({ choices: [{ index: 0, delta: { content: ', world' }, finish_reason: null }] }) +
    frame({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) +
    frame({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } }) +
    'data: [DONE]\n\n'
  );
};

/**
 * The worst upstream for secrets: an OpenAI-compatible loopback server that quotes the request's
 * `Authorization: Bearer <key>` in its error messages, so a test can prove the key never reaches a downstream client
 * or a log line. The model name chooses where (the part after `#`, as with the emulator):
 *
 * - `…#in-band`: a 200 stream of two content chunks, then `event: error` + `data: {"error":{"message":"…<key>…"}}`
 *   mid-stream, and the end of the response (no `[DONE]`).
 * - `…#in-fields`: a complete 200 answer whose every chunk quotes the key in `id` (`chatcmpl-<key>`), `model`
 *   (`model-<key>`) and `system_fingerprint` (`fp_<key>`): the strings a server passes on to its clients.
 * - anything else: HTTP 500 with `{"error":{"message":"…<key>…","type":"server_error","code":"internal_error"}}`.
 *
 * @returns The running upstream, once it listens.
 */
export async function startKeyEchoUpstream(): Promise<KeyEchoUpstream> {
  const keysEchoed: string[] = [];
  const server = await startServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (text: string) => (body += text));
    req.on('end', () => {
      const key = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
      keysEchoed.push(key);
      let model = '';
      try {
        model = String((JSON.parse(body) as { model?: unknown }).model ?? '');
      } catch {
        // not JSON: the 500 below
      }
      const error = { message: leak(key), type: 'server_error', code: 'internal_error' };
      if (model.endsWith('#in-fields')) {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.end(fieldsAnswer(key));
        return;
      }
      if (model.endsWith('#in-band')) {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.end(`${contentFrame('Hello')}${contentFrame(', world')}event: error\ndata: ${JSON.stringify({ error })}\n\n`);
        return;
      }
      res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error }));
    });
  });
  return { url: server.url, keysEchoed, close: () => server.close() };
}
