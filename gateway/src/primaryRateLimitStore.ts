import cluster, { type Worker } from 'node:cluster';
import type { RateLimitStore } from 'chatflux';

/**
 * The methods of `RateLimitStore` a worker forwards to the primary (everything but `scope` and `close`, which each
 * side answers itself). A method added to the port is shared by adding its name here: the worker's proxy and the
 * primary's dispatcher are both written over this list, and TypeScript refuses a proxy that lacks a method of the port.
 */
export const FORWARDED_RATE_LIMIT_METHODS = ['admit', 'settle', 'abort', 'renew', 'release'] as const satisfies readonly Exclude<keyof RateLimitStore, 'scope' | 'close'>[];

/** A forwarded method's name. */
type Forwarded = (typeof FORWARDED_RATE_LIMIT_METHODS)[number];

/** How long a worker waits for the primary's answer before the call rejects (and the failure policy applies), in ms. */
const PRIMARY_REPLY_MS = 1000;

/** A worker's call, over the cluster's IPC channel. */
interface CallMessage {
  chatfluxRateLimit: { id: number; method: Forwarded; args: unknown[] };
}
/** The primary's answer to one call. */
interface ReplyMessage {
  chatfluxRateLimitReply: { id: number; value?: unknown; error?: string };
}

/**
 * The primary's side (`CHATFLUX_WORKERS` with `limits` and no Redis): answers every worker's calls with one store, so
 * that the limits hold for the whole gateway, not once per worker. A place a worker held when it died expires with its
 * TTL in the store, like any other.
 *
 * @param store - The store the primary holds (the memory store).
 * @returns Stops answering.
 */
export function servePrimaryRateLimitStore(store: RateLimitStore): () => void {
  const onMessage = (worker: Worker, message: unknown): void => {
    const call = (message as Partial<CallMessage> | null)?.chatfluxRateLimit;
    if (call === undefined || !(FORWARDED_RATE_LIMIT_METHODS as readonly string[]).includes(call.method) || !Array.isArray(call.args)) return;
    // optional in the port (`abort`): a store without it has nothing to undo
    const method = store[call.method] as ((...args: unknown[]) => Promise<unknown>) | undefined;
    const reply = (body: Omit<ReplyMessage['chatfluxRateLimitReply'], 'id'>): void => {
      if (worker.isConnected()) worker.send({ chatfluxRateLimitReply: { id: call.id, ...body } } satisfies ReplyMessage);
    };
    Promise.resolve()
      .then(() => method?.apply(store, call.args))
      .then(
        (value) => reply(value === undefined ? {} : { value }),
        (error: unknown) => reply({ error: error instanceof Error ? error.message : String(error) }),
      );
  };
  cluster.on('message', onMessage);
  return () => void cluster.off('message', onMessage);
}

/**
 * A worker's `RateLimitStore` that forwards each call to the primary (`servePrimaryRateLimitStore`) and awaits its
 * answer: the workers of one gateway share the primary's limits. A primary that does not answer within a second (gone,
 * blocked) rejects the call, and the serving core's failure policy applies (`limits.onStoreFailure`), told as for Redis.
 *
 * @returns The store; its `scope` is `'shared'` (shared by this gateway's workers, not by other instances).
 */
export function connectPrimaryRateLimitStore(): RateLimitStore {
  let next = 0;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  const onMessage = (message: unknown): void => {
    const reply = (message as Partial<ReplyMessage> | null)?.chatfluxRateLimitReply;
    const waiting = reply === undefined ? undefined : pending.get(reply.id);
    if (reply === undefined || waiting === undefined) return;
    pending.delete(reply.id);
    clearTimeout(waiting.timer);
    if (reply.error === undefined) waiting.resolve(reply.value);
    else waiting.reject(new Error(`the primary's rate-limit store failed: ${reply.error}`));
  };
  process.on('message', onMessage);
  const call = (method: Forwarded, args: unknown[]): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the primary did not answer a rate-limit call within ${PRIMARY_REPLY_MS} ms`));
      }, PRIMARY_REPLY_MS).unref();
      pending.set(id, { resolve, reject, timer });
      const sent = process.send?.({ chatfluxRateLimit: { id, method, args } } satisfies CallMessage, undefined, undefined, (error: Error | null) => {
        if (error === null || !pending.delete(id)) return;
        clearTimeout(timer);
        reject(new Error(`the primary cannot be reached: ${error.message}`));
      });
      if (sent === undefined && pending.delete(id)) {
        clearTimeout(timer);
        reject(new Error('not a cluster worker: no primary to ask'));
      }
    });
  const forwarded = Object.fromEntries(FORWARDED_RATE_LIMIT_METHODS.map((method) => [method, (...args: unknown[]) => call(method, args)])) as unknown as Pick<RateLimitStore, Forwarded>;
  return {
    ...forwarded,
    scope: 'shared',
    close: async () => {
      process.off('message', onMessage);
      for (const [id, waiting] of pending) {
        clearTimeout(waiting.timer);
        pending.delete(id);
        waiting.reject(new Error('the rate-limit store was closed'));
      }
    },
  };
}
