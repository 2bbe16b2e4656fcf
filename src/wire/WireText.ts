/**
 * A value already written in its wire's text: `SSE_WIRE` (hence `EVENT_SOURCE_WIRE`) and `NDJSON_WIRE` write
 * {@link WireText.text} as it is, without encoding anything again. The serving core's resumable answers use it
 * (`loggedFrame`): a value is turned into JSON once, for the stream log, and that same text is the frame the client
 * gets — not a `ServerSentEvent` whose fields the writer would check and split again, nor, on NDJSON, the value
 * stringified a second time.
 *
 * Not part of the public API: whoever makes one vouches for its text — one whole frame of the wire it is written on
 * (an SSE frame ending with its blank line, or one NDJSON line ending with `\n`).
 */
export class WireText {
  /**
   * @param text - The frame's exact text on its wire.
   */
  constructor(readonly text: string) {}
}
