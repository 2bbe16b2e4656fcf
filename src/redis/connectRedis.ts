import { createHash } from 'node:crypto';
import { createClient } from 'redis';
import { within } from './within.js';

/** A node-redis client speaking RESP2 (flat arrays for hashes and streams), no offline queue. */
const makeClient = (url: string, connectTimeout: number, reconnectStrategy: (retries: number) => number | false) =>
  createClient({ url, RESP: 2, disableOfflineQueue: true, socket: { connectTimeout, reconnectStrategy } });

/** A node-redis client of {@link connectRedis}. */
export type RedisClient = ReturnType<typeof makeClient>;

/** A reply of Redis, as RESP2 gives it. */
export type RedisReply = string | number | null | RedisReply[];

/** Options of {@link connectRedis}. */
export interface RedisConnectionConfig {
  /** The Redis URL (checked by the caller). */
  readonly url: string;
  /** The timeout of one command, in ms (and of the first connect, at least 1000). */
  readonly commandTimeoutMs: number;
  /** The longest wait between two reconnection attempts, in ms. */
  readonly maxReconnectDelayMs: number;
  /** Called with every Redis error (for logs). */
  readonly onError: (error: Error) => void;
  /** Called when a command failed (counted by the stream log), before `onError`. */
  readonly onCommandError?: () => void;
}

/** The Redis connection every store of `chatflux/redis` shares the handling of: see {@link connectRedis}. */
export interface RedisConnection {
  /** The command client. */
  readonly client: RedisClient;
  /** A new client with the same settings (a subscriber, a blocking reader), connected by the caller. */
  newClient(): RedisClient;
  /** Resolves once the first connect has succeeded or failed (bounded): commands sent at once are not refused for it. */
  connected(): Promise<void>;
  /** One command; rejects at once when Redis is not connected (no offline queue). */
  send(args: string[], timeout?: number): Promise<RedisReply>;
  /** A Lua script by its SHA-1 (`EVALSHA`), sent whole (`EVAL`) when this Redis has not seen it (`NOSCRIPT`). */
  evalScript(script: string, keys: string[], args: Array<string | number>): Promise<RedisReply>;
  /** Stops reconnecting and closes the command client and `others`. */
  close(others?: Iterable<RedisClient>): Promise<void>;
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * The Redis connection handling of `chatflux/redis`, written once for its stores (the stream log, the rate-limit
 * store): node-redis clients with RESP2, no offline queue (a command while Redis is down fails at once, it is never
 * queued behind the outage), short command timeouts, reconnection in the background with capped backoff, a bounded
 * wait for the first connect, a hard deadline on every reply (`within`: node-redis's own timeout covers only the
 * write), and scripts by SHA-1.
 *
 * @param config - The URL, the timeouts and the error hooks.
 * @returns The connection (its command client connecting).
 */
export function connectRedis(config: RedisConnectionConfig): RedisConnection {
  const { url, commandTimeoutMs, maxReconnectDelayMs, onError } = config;
  let closed = false;
  const reconnectStrategy = (retries: number): number | false => (closed ? false : Math.min(50 * 2 ** Math.min(retries, 6), maxReconnectDelayMs));
  const newClient = (): RedisClient => {
    const made = makeClient(url, Math.max(1000, commandTimeoutMs), reconnectStrategy);
    made.on('error', (error: unknown) => onError(asError(error)));
    return made;
  };
  const client = newClient();
  void client.connect().catch((error: unknown) => onError(asError(error)));
  // The first connect: until it succeeds or fails (bounded), a command waits for it instead of finding Redis "down" —
  // a store used at once after its creation shares its first decisions. Redis refusing the connection ends it at once.
  let endFirstConnect = (): void => undefined;
  let firstConnect: Promise<void> | undefined = new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      client.off('ready', done);
      client.off('error', done);
      firstConnect = undefined;
      resolve();
    };
    const timer = setTimeout(done, Math.max(1000, commandTimeoutMs)).unref();
    client.on('ready', done);
    client.on('error', done);
    endFirstConnect = done;
  });
  const failed = (error: unknown): never => {
    config.onCommandError?.();
    onError(asError(error));
    throw error;
  };
  const send = async (args: string[], timeout = commandTimeoutMs): Promise<RedisReply> => {
    if (!client.isReady) throw new Error('Redis is not connected');
    try {
      return (await within(client.sendCommand(args, { timeout }), timeout)) as RedisReply;
    } catch (error) {
      return failed(error);
    }
  };
  const shas = new Map<string, string>();
  return {
    client,
    newClient,
    connected: async () => {
      if (firstConnect !== undefined) await firstConnect;
    },
    send,
    evalScript: async (script, keys, args) => {
      let sha = shas.get(script);
      if (sha === undefined) shas.set(script, (sha = createHash('sha1').update(script).digest('hex')));
      const rest = [String(keys.length), ...keys, ...args.map(String)];
      if (!client.isReady) throw new Error('Redis is not connected');
      try {
        return (await within(client.sendCommand(['EVALSHA', sha, ...rest], { timeout: commandTimeoutMs }), commandTimeoutMs)) as RedisReply;
      } catch (error) {
        if (!String((error as Error | undefined)?.message).startsWith('NOSCRIPT')) failed(error);
      }
      return send(['EVAL', script, ...rest]);
    },
    close: async (others = []) => {
      closed = true;
      endFirstConnect();
      await Promise.all(
        [client, ...others].map(async (used) => {
          try {
            if (used.isReady) await within(used.close(), commandTimeoutMs + 1000); // waits for the replies due
            else if (used.isOpen) used.destroy();
          } catch {
            try {
              used.destroy(); // a Redis that does not answer
            } catch {
              // already closed
            }
          }
        }),
      );
    },
  };
}
