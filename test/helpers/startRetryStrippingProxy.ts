import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { startServer, type TestServer } from './startServer';

/** A request the proxy passed on, and the status it got. */
export interface ProxiedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  status?: number;
}

/** {@link startRetryStrippingProxy}'s server, with what it passed on. */
export interface RetryStrippingProxy extends TestServer {
  /** Every request passed on, in order, with its response's status once known. */
  readonly proxied: ProxiedRequest[];
}

/**
 * A loopback reverse proxy to `target` that passes everything on as it is, except the `retry:` lines of event streams,
 * which it drops: what a client or an intermediary that ignores `retry:` makes of a stream. An `EventSource` behind
 * it reconnects at its default delay (about 3 s), so a test sees what that reconnect gets.
 */
export async function startRetryStrippingProxy(target: string): Promise<RetryStrippingProxy> {
  const proxied: ProxiedRequest[] = [];
  const server = await startServer((req, res) => {
    const entry: ProxiedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: { ...req.headers } };
    proxied.push(entry);
    const upstream = httpRequest(`${target}${entry.url}`, { method: entry.method, headers: req.headers }, (answer) => {
      entry.status = answer.statusCode ?? 0;
      res.writeHead(entry.status, answer.headers);
      if (!(answer.headers['content-type'] ?? '').startsWith('text/event-stream')) return void answer.pipe(res);
      let partial = ''; // a line cut between two reads waits for its end
      answer.setEncoding('utf8');
      answer.on('data', (text: string) => {
        const lines = (partial + text).split('\n');
        partial = lines.pop() ?? '';
        const kept = lines.filter((line) => !line.startsWith('retry:'));
        if (kept.length > 0) res.write(`${kept.join('\n')}\n`);
      });
      answer.on('end', () => res.end(partial));
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  return Object.assign(server, { proxied });
}
