import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

/** A response as it came over the wire: status, headers, the whole body, and each body piece with its arrival time. */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Body pieces in arrival order, with milliseconds since the request was sent. */
  pieces: Array<{ at: number; text: string }>;
}

/** Options of {@link rawRequest}. */
export interface RawRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** A string or a Buffer is sent as is; anything else as JSON (with `Content-Type: application/json` unless given). */
  body?: unknown;
  /** Called with each body piece; return `'abort'` to destroy the connection there (a client disconnect). */
  onPiece?: (text: string, soFar: string) => void | 'abort';
  /** Destroys the request when aborted; the promise then resolves with what arrived. */
  signal?: AbortSignal;
  /** Called with the status and headers as soon as they arrive (before the body). */
  onHeaders?: (status: number, headers: IncomingHttpHeaders) => void;
}

/**
 * One HTTP/1.1 request with `node:http` (not fetch: the exact headers are visible, nothing is decoded for us).
 * Resolves when the response ended or the connection closed (a disconnect resolves with what arrived).
 */
export function rawRequest(url: string, options: RawRequestOptions = {}): Promise<RawResponse> {
  const { method = options.body === undefined ? 'GET' : 'POST', signal } = options;
  const headers: Record<string, string> = { ...options.headers };
  let payload: string | Buffer | undefined;
  if (options.body !== undefined) {
    payload = typeof options.body === 'string' || Buffer.isBuffer(options.body) ? options.body : JSON.stringify(options.body);
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  }
  const started = performance.now();
  return new Promise<RawResponse>((resolve, reject) => {
    let responded = false;
    // A keep-alive agent of its own (as curl and browsers do: HTTP/1.1 without `Connection: close`), destroyed at the end.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const req = httpRequest(url, { method, headers, agent }, (res) => {
      responded = true;
      const out: RawResponse = { status: res.statusCode ?? 0, headers: res.headers, body: '', pieces: [] };
      options.onHeaders?.(out.status, res.headers);
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        out.body += text;
        out.pieces.push({ at: performance.now() - started, text });
        if (options.onPiece?.(text, out.body) === 'abort') req.destroy();
      });
      res.on('close', () => {
        agent.destroy();
        resolve(out);
      });
      res.on('error', () => undefined);
    });
    req.on('error', (error) => (signal?.aborted ? undefined : reject(error)));
    req.on('close', () => {
      if (responded) return;
      agent.destroy();
      resolve({ status: 0, headers: {}, body: '', pieces: [] });
    });
    signal?.addEventListener('abort', () => req.destroy(), { once: true });
    req.end(payload);
  });
}

/** A request whose reader is under the test's control: a slow client. */
export interface ControlledRequest {
  /** Resolves with the response's status and headers. */
  response: Promise<{ status: number; headers: IncomingHttpHeaders }>;
  /** Body bytes read so far. */
  bytesRead(): number;
  /** Stops reading (TCP fills, the server's `res.write()` returns false). */
  pause(): void;
  /** Reads on. */
  resume(): void;
  /** The body so far. */
  text(): string;
  /** Resolves when the response ended or the connection closed. */
  closed: Promise<void>;
  /** Disconnects. */
  destroy(): void;
}

/** Starts a request whose body is read only while not paused (it starts paused when `paused` is true). */
export function controlledRequest(url: string, options: { body?: unknown; headers?: Record<string, string>; paused?: boolean } = {}): ControlledRequest {
  const headers: Record<string, string> = { ...options.headers };
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (payload !== undefined) headers['Content-Type'] ??= 'application/json';
  let bytes = 0;
  let body = '';
  let incoming: import('node:http').IncomingMessage | undefined;
  let paused = options.paused ?? false;
  let closedResolve: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (closedResolve = resolve));
  let req!: ReturnType<typeof httpRequest>;
  const response = new Promise<{ status: number; headers: IncomingHttpHeaders }>((resolve, reject) => {
    req = httpRequest(url, { method: payload === undefined ? 'GET' : 'POST', headers, agent: false }, (res) => {
      incoming = res;
      res.on('data', (part: Buffer) => {
        bytes += part.length;
        body += part.toString('utf8');
      });
      if (paused) res.pause();
      res.on('close', closedResolve);
      res.on('error', () => undefined);
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    });
    req.on('error', (error) => (req.destroyed ? closedResolve() : reject(error)));
    req.on('close', closedResolve);
    req.end(payload);
  });
  return {
    response,
    bytesRead: () => bytes,
    pause: () => ((paused = true), incoming?.pause()),
    resume: () => ((paused = false), incoming?.resume()),
    text: () => body,
    closed,
    destroy: () => req.destroy(),
  };
}
