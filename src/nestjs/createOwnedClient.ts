import { Agent } from 'undici';
import { createChatClient, type ChatClient, type ChatClientConfig } from '../client/createChatClient.js';
import { DEFAULT_TIMEOUTS } from '../client/defaultTimeouts.js';

/** A client that `ChatfluxModule` created, and how to close it. */
export interface OwnedClient {
  client: ChatClient;
  /** Closes the client, then its connection pool gracefully (requests still running get `closeMs`), else at once. */
  close(closeMs: number): Promise<void>;
}

/**
 * Creates the module's client with a connection pool the module owns — an undici `Agent` with the options
 * `createChatClient` would give its own (`connections`, `timeouts.connect`, `timeouts.headers`) — so that a shutdown
 * can close it gracefully (`agent.close()` lets requests finish) instead of destroying it. A `dispatcher` in the
 * config stays its owner's.
 */
export function createOwnedClient(config: ChatClientConfig): OwnedClient {
  if (config.dispatcher !== undefined) {
    const client = createChatClient(config);
    return { client, close: () => client.close() };
  }
  const timeouts = { ...DEFAULT_TIMEOUTS, ...config.timeouts };
  const agent = new Agent({
    connections: config.connections ?? 128,
    connect: { timeout: timeouts.connect },
    headersTimeout: timeouts.headers,
    bodyTimeout: 0,
  });
  const client = createChatClient({ ...config, dispatcher: agent });
  return {
    client,
    close: async (closeMs) => {
      await client.close(); // new calls fail with a ConfigError; the agent is ours to close
      let timer: ReturnType<typeof setTimeout> | undefined;
      const closed = await Promise.race([
        agent.close().then(() => true),
        new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), closeMs))),
      ]);
      clearTimeout(timer);
      if (!closed) await agent.destroy();
    },
  };
}
