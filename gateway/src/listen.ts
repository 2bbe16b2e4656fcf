import type { Server } from 'node:http';
import { ConfigError } from 'chatflux';

/** Why a listen failed, in a user's words, by `errno` code. */
const REASONS: Record<string, (port: number, host: string) => string> = {
  EADDRINUSE: (port, host) => `port ${port} on ${host} is already in use (EADDRINUSE): stop the other server, or set PORT to a free port`,
  EACCES: (port, host) => `not permitted to listen on port ${port} on ${host} (EACCES): set PORT above 1023, or grant the permission`,
  EADDRNOTAVAIL: (port, host) => `HOST ${host} is not an address of this machine (EADDRNOTAVAIL): set HOST to one of its addresses, 0.0.0.0 or 127.0.0.1 (port ${port})`,
  ENOTFOUND: (port, host) => `HOST ${host} does not resolve (ENOTFOUND): set HOST to an address of this machine (port ${port})`,
};

/**
 * Starts `server` listening on `host:port`, and resolves once it does.
 *
 * @param server - The HTTP server.
 * @param port - The port (`0`: an ephemeral one).
 * @param host - The interface.
 * @returns The port it listens on.
 * @throws ConfigError naming the setting to change when the port is taken, not permitted, or the host is not local
 *   (the listen error as its `cause`); any other listen error as it is.
 */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      const reason = error.code === undefined ? undefined : REASONS[error.code];
      reject(reason === undefined ? error : new ConfigError(reason(port, host), { cause: error }));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}
