/** Remembers the last bytes of a stream to tell whether they end with the `data: [DONE]` event. */
export interface DoneTracker {
  /** Notes a chunk about to be delivered. O(1) for chunks of 32 bytes or more (a reference is kept, nothing copied). */
  push(chunk: Uint8Array): void;
  /** True when the bytes pushed so far end with a `data: [DONE]` line and the blank line that dispatches it. */
  endsWithDone(): boolean;
}

// enough for "\ndata: [DONE]\r\n\r\n" (17 bytes) with room to spare
const TAIL = 32;
// a line terminator is CRLF, LF or a CR not followed by LF (HTML §9.2.6); the `data:` field takes one optional space
const DONE_AT_END = /(?:^|[\r\n])data: ?\[DONE\](?:\r\n|\r(?!\n)|\n)(?:\r\n|\r|\n)$/;

/**
 * Creates a {@link DoneTracker}: `requestCompletion` asks it at teardown whether the answer is complete (the stream
 * ended with `data: [DONE]`), to let the body finish on its keep-alive connection instead of destroying the socket.
 *
 * An event with more lines after `data: [DONE]` (an `id:` line, say) is not recognised: the answer is then
 * treated as unfinished, which is always safe.
 */
export function createDoneTracker(): DoneTracker {
  let tail: Uint8Array = new Uint8Array(0);
  return {
    push(chunk) {
      if (chunk.byteLength >= TAIL) {
        tail = chunk;
        return;
      }
      const keep = tail.subarray(Math.max(0, tail.byteLength - (TAIL - chunk.byteLength)));
      const joined = new Uint8Array(keep.byteLength + chunk.byteLength);
      joined.set(keep);
      joined.set(chunk, keep.byteLength);
      tail = joined;
    },
    endsWithDone() {
      const last = tail.subarray(Math.max(0, tail.byteLength - TAIL));
      return DONE_AT_END.test(Buffer.from(last.buffer, last.byteOffset, last.byteLength).toString('latin1'));
    },
  };
}
