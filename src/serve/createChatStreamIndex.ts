/** Options of {@link createChatStreamIndex}. */
export interface ChatStreamIndexConfig {
  /** The most chats remembered in all (the oldest entry goes first). Default 10000. */
  readonly maxChats?: number;
  /** The most chats remembered per client (that client's oldest entry goes first). Default 1000. */
  readonly maxChatsPerClient?: number;
  /** How long an entry is kept after it was set, in ms. Default 3600000 (an hour). */
  readonly ttlMs?: number;
  /** The clock, in ms (tests). Default `Date.now`. */
  readonly now?: () => number;
}

/** A chat's latest answer, by client and chat id: what `GET /chat/ui/{chatId}/stream` resumes. */
export interface ChatStreamIndex {
  /** Remembers `streamId` as the latest answer of `client`'s chat `chatId` (a chat id past 128 characters is not kept). */
  set(client: string, chatId: string, streamId: string): void;
  /** The latest answer of `client`'s chat `chatId`, or `undefined` (never set, expired, or pushed out by newer ones). */
  get(client: string, chatId: string): string | undefined;
  /** Forgets `client`'s chat `chatId` if its latest answer is still `streamId` (that answer has ended). */
  delete(client: string, chatId: string, streamId: string): void;
}

/** The longest chat id kept: `useChat` makes 16-character ids; a longer one is not remembered. */
const MAX_CHAT_ID_CHARS = 128;

/**
 * The bounded map from a client's chat id (`useChat`'s `id`, chosen by the client) to the stream id of its latest
 * resumable answer: no client-chosen string becomes unbounded state — the count is bounded in all and per client, and
 * each entry expires (the serving core also deletes it when its answer ends: it holds the running ones).
 *
 * ```text
 * set(client, chatId, streamId) ─► per client: its oldest out past maxChatsPerClient; in all: the oldest out past maxChats
 * get(client, chatId)           ─► the stream id while younger than ttlMs, else undefined
 * ```
 *
 * @param config - The bounds and the clock.
 * @returns The index.
 */
export function createChatStreamIndex(config: ChatStreamIndexConfig = {}): ChatStreamIndex {
  const { maxChats = 10_000, maxChatsPerClient = 1000, ttlMs = 3_600_000, now = Date.now } = config;
  /** Per client, its chats in the order they were set (a Map keeps insertion order). */
  const clients = new Map<string, Map<string, { streamId: string; expires: number }>>();
  /** Every entry in the order it was set: `[client, chatId]`, for the oldest-first eviction across clients. */
  const order = new Map<string, readonly [string, string]>();
  let count = 0;
  const keyOf = (client: string, chatId: string): string => `${client.length}:${client}${chatId}`;
  const remove = (client: string, chatId: string): void => {
    const chats = clients.get(client);
    if (chats?.delete(chatId) !== true) return;
    count--;
    order.delete(keyOf(client, chatId));
    if (chats.size === 0) clients.delete(client);
  };
  return {
    set: (client, chatId, streamId) => {
      if (chatId.length === 0 || chatId.length > MAX_CHAT_ID_CHARS) return;
      remove(client, chatId); // a newer answer of the same chat: it moves to the end
      let chats = clients.get(client);
      if (chats === undefined) clients.set(client, (chats = new Map()));
      const oldestOwn = chats.size >= maxChatsPerClient ? chats.keys().next().value : undefined;
      if (oldestOwn !== undefined) remove(client, oldestOwn);
      const oldest = count >= maxChats ? order.values().next().value : undefined;
      if (oldest !== undefined) remove(oldest[0], oldest[1]);
      if (!clients.has(client)) clients.set(client, chats); // its last entry was the oldest of all
      chats.set(chatId, { streamId, expires: now() + ttlMs });
      order.set(keyOf(client, chatId), [client, chatId]);
      count++;
    },
    get: (client, chatId) => {
      const entry = clients.get(client)?.get(chatId);
      if (entry === undefined) return undefined;
      if (entry.expires > now()) return entry.streamId;
      remove(client, chatId);
      return undefined;
    },
    delete: (client, chatId, streamId) => {
      if (clients.get(client)?.get(chatId)?.streamId === streamId) remove(client, chatId);
    },
  };
}
