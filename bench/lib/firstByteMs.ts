import type { ClientRequest, IncomingMessage } from 'node:http';

/**
 * Time from sending one request to the first byte of its response body, in ms; the response is then read to its end
 * before the promise resolves (so the next probe on a keep-alive agent reuses the connection).
 *
 * @param send - Sends the request (now) and calls `onResponse` with its response.
 * @returns The milliseconds to the first body byte.
 */
export function firstByteMs(send: (onResponse: (res: IncomingMessage) => void) => ClientRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = send((res) => {
      res.once('data', () => {
        const ms = performance.now() - start;
        res.resume();
        res.on('end', () => resolve(ms));
      });
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
  });
}
