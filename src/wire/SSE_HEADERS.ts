/** The headers of every Server-Sent Events response: the event-stream type, no caching or transforms, no proxy buffering. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
};
