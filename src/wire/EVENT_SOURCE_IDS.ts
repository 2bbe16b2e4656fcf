/**
 * The `id:`s of `GET /chat/sse`'s events (`EVENT_SOURCE_WIRE`), written and read here only.
 *
 * Today one id exists: `finished`, on the final frame (`data: [DONE]`, after the answer or its in-band error). A
 * browser's `EventSource` keeps it as its last event ID and sends it back as `Last-Event-ID` when it reconnects;
 * `isFinished` recognises it there, and the reconnect gets 204, which makes the `EventSource` stop (WHATWG HTML
 * §9.2.3: a status other than 200 fails the connection). The decision is stateless: nothing is stored per answer, and
 * a client-chosen `Last-Event-ID` is only compared, never kept. (A forged `done` can only stop its own request.)
 */
export const EVENT_SOURCE_IDS = {
  /** The id of the final frame: the answer is over, nothing more will come for this request. */
  finished: 'done',
  /**
   * Whether a request's `Last-Event-ID` names a finished answer.
   *
   * @param lastEventId - The request's `Last-Event-ID` header, if any.
   * @returns `true` for the id of a final frame.
   */
  isFinished: (lastEventId: string | null | undefined): boolean => lastEventId === 'done',
} as const;
