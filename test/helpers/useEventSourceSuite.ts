import { EventSource } from 'eventsource';
import type { ChatRequestLog } from '../../src/serve/ChatRequestLog';
import { useEmulatedClient, type EmulatedClient } from './useEmulatedClient';

/** What an EventSource saw: its messages' data and last event ids, its error events' codes. */
export interface SeenEventSource {
  source: EventSource;
  messages: Array<{ data: string; lastEventId: string }>;
  errors: Array<number | undefined>;
}

/** The shared state of a finished-`EventSource` suite: see {@link useEventSourceSuite}. */
export interface EventSourceSuite {
  /** The emulated upstream (`useEmulatedClient`). */
  readonly upstream: EmulatedClient;
  /** The log entries of the server under test (emptied after each test). */
  readonly logs: ChatRequestLog[];
  /** Registers a server or proxy to close after this test (the last registered first); returns it. */
  closeAfter<T extends { close(): Promise<void> }>(closeable: T): T;
  /** Opens an EventSource on `url` (closed after the test) and records what it sees. */
  open(url: string): SeenEventSource;
  /** The upstream's request count so far. */
  upstreamCalls(): number;
}

/** The request a suite asks for, and its `q` parameter. */
export const EVENT_SOURCE_HELLO = { messages: [{ role: 'user', content: 'hi' }] };
export const EVENT_SOURCE_Q = encodeURIComponent(JSON.stringify(EVENT_SOURCE_HELLO));
/** Longer than two of an EventSource's default reconnect delays (3 s): a reconnect would have happened in it. */
export const EVENT_SOURCE_WINDOW_MS = 8000;

/** Whether an EventSource has seen `[DONE]`. */
export const gotDone = (seen: SeenEventSource): boolean => seen.messages.some((message) => message.data === '[DONE]');

/**
 * Registers the hooks of a finished-`EventSource` suite in the calling scope (the node core's and the web handlers'
 * run the same way): the emulated upstream, and after each test every EventSource closed, every registered server
 * and proxy closed (the last registered first), the log emptied.
 */
export function useEventSourceSuite(): EventSourceSuite {
  const upstream = useEmulatedClient();
  const logs: ChatRequestLog[] = [];
  const sources: EventSource[] = [];
  const closeables: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const source of sources.splice(0)) source.close();
    for (const closeable of closeables.splice(0).reverse()) await closeable.close();
    logs.length = 0;
  });
  return {
    upstream,
    logs,
    closeAfter: (closeable) => {
      closeables.push(closeable);
      return closeable;
    },
    open: (url) => {
      const source = new EventSource(url);
      sources.push(source);
      const seen: SeenEventSource = { source, messages: [], errors: [] };
      source.onmessage = (event) => seen.messages.push({ data: String(event.data), lastEventId: event.lastEventId });
      source.addEventListener('error', (event) => seen.errors.push((event as unknown as { code?: number }).code));
      return seen;
    },
    upstreamCalls: () => upstream.emulator.requests.length,
  };
}
