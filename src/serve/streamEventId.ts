/** The longest `Last-Event-ID` (or `after`) looked at: a stream id (≤ 64) and a position; longer is not ours. */
const MAX_EVENT_ID = 96;
const EVENT_ID = /^([A-Za-z0-9_-]{1,64}):(0|[1-9][0-9]{0,15})$/;

/**
 * The SSE `id:` of a resumable answer's event — `<stream id>:<position>` — written and read here only. An
 * `EventSource` (or `fetch-event-source`) sends the last one back as `Last-Event-ID` when it reconnects, and the
 * serving core resumes that stream after that position, on any instance.
 */
export const streamEventId = {
  /**
   * The id of the event at `position` of stream `id`.
   *
   * @param id - The stream's id.
   * @param position - The value's position (0, 1, …).
   * @returns `<id>:<position>`.
   */
  of: (id: string, position: number): string => `${id}:${position}`,
  /**
   * Reads a `Last-Event-ID`: the stream and the position it names, or `undefined` for anything else (no header, the
   * final frame's `done`, a client's own id) — only compared, never kept.
   *
   * @param header - The request's `Last-Event-ID`.
   * @returns The stream id and the position, or `undefined`.
   */
  parse(header: string | undefined): { id: string; position: number } | undefined {
    if (header === undefined || header.length > MAX_EVENT_ID) return undefined;
    const match = EVENT_ID.exec(header);
    if (match === null) return undefined;
    const position = Number(match[2]);
    return Number.isSafeInteger(position) ? { id: match[1] as string, position } : undefined;
  },
};
