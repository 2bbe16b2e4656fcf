import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A real HTTP server on 127.0.0.1 with an ephemeral port, for tests. */
export interface TestServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  server: Server;
  /** Every request seen, in order. */
  requests: IncomingMessage[];
  /** Sockets currently open (to assert that a client closed its connection). */
  openSockets: Set<Socket>;
  /** Resolves when the next socket closes. */
  nextSocketClose(): Promise<void>;
  /** Destroys every socket and closes the server. */
  close(): Promise<void>;
}

/** Starts `handler` on 127.0.0.1:0 and resolves once it listens. */
export async function startServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const requests: IncomingMessage[] = [];
  const openSockets = new Set<Socket>();
  let closeWaiters: Array<() => void> = [];
  const listener: RequestListener = (req, res) => {
    requests.push(req);
    handler(req, res);
  };
  const server = createServer(listener);
  server.on('connection', (socket) => {
    openSockets.add(socket);
    socket.on('close', () => {
      openSockets.delete(socket);
      const waiters = closeWaiters;
      closeWaiters = [];
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    requests,
    openSockets,
    nextSocketClose: () => new Promise<void>((resolve) => closeWaiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of openSockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
