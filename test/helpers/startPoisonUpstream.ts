import { startServer, type TestServer } from './startServer';

/**
 * An OpenAI-compatible upstream that answers 500 to a body holding "poison" (or to every body while `state.down`),
 * else a short streamed answer ("ok"): one client's requests that a provider chokes on, for the breakers' caller tests.
 */
export function startPoisonUpstream(state: { down: boolean }): Promise<TestServer> {
  return startServer((req, res) => {
    let body = '';
    req.on('data', (piece: Buffer) => (body += piece.toString()));
    req.on('end', () => {
      if (state.down || body.includes('poison')) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'internal error', type: 'internal_error' } }));
        return;
      }
      const chunk = (delta: object, finish: string | null): string =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(chunk({ role: 'assistant', content: 'ok' }, null) + chunk({}, 'stop') + 'data: [DONE]\n\n');
    });
  });
}
