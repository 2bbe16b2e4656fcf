import type { Readable } from 'node:stream';

/** A body `fromBody` accepts: a web `ReadableStream`, a Node `Readable`, or any `AsyncIterable` of bytes. */
export type BodySource = ReadableStream<Uint8Array> | Readable | NodeJS.ReadableStream | AsyncIterable<Uint8Array>;

/** One pull-based reader over any {@link BodySource}: `read()` resolves the next chunk or `undefined` at the end. */
export interface BodyReader {
  /** The next chunk, `undefined` at the end; rejects with the body's error (also one that happened between reads). */
  read(): Promise<Uint8Array | undefined>;
  /** Releases the body at once, even while a `read()` is pending (a pending read may then never settle). */
  cancel(): void;
  /**
   * Stops listening to the body without cancelling it, so that someone else can finish it (a pending read may then
   * never settle). A Node `Readable` loses every listener of this reader, its `'error'` listener included.
   */
  release(): void;
}

const toBytes = (chunk: unknown): Uint8Array =>
  chunk instanceof Uint8Array
    ? chunk
    : typeof chunk === 'string'
      ? Buffer.from(chunk, 'utf8')
      : Buffer.from(chunk as ArrayBuffer);

function webReader(body: ReadableStream<Uint8Array>): BodyReader {
  const reader = body.getReader();
  return {
    read: async () => {
      const { done, value } = await reader.read();
      return done ? undefined : toBytes(value);
    },
    cancel: () => void reader.cancel().catch(() => undefined),
    release: () => {
      try {
        reader.releaseLock(); // a pending read is rejected, and ignored
      } catch {
        // older runtimes refuse while a read is pending: the lock then stays, the body is left as it is
      }
    },
  };
}

function nodeReader(stream: Readable): BodyReader {
  // One 'error' listener from creation until release: an error between reads (while the source waits on a closed
  // demand gate) is kept for the next read instead of becoming an uncaught exception. The 'readable', 'end' and
  // 'close' listeners are added once too (not per read): a read that finds a chunk buffered settles at once, with no
  // Promise of its own and no listener churn; one that waits parks its resolver for the next change.
  let failure: { error: unknown } | undefined;
  let waiting: { resolve: (chunk: Uint8Array | undefined) => void; reject: (error: unknown) => void } | undefined;
  let listening = false;
  /** What a read gets now: a chunk, the end (`undefined`), a failure, or `null` while nothing is there yet. */
  const poll = (): { chunk: Uint8Array | undefined } | { error: unknown } | null => {
    if (failure !== undefined) return failure;
    if (stream.errored) return { error: stream.errored };
    const chunk: unknown = stream.read();
    if (chunk !== null) return { chunk: toBytes(chunk) };
    if (stream.readableEnded) return { chunk: undefined };
    if (stream.destroyed)
      return { error: Object.assign(new Error('premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }) };
    return null;
  };
  const onChange = (): void => {
    const parked = waiting;
    if (parked === undefined) return;
    const result = poll();
    if (result === null) return;
    waiting = undefined;
    if ('error' in result) parked.reject(result.error);
    else parked.resolve(result.chunk);
  };
  const onError = (error: unknown): void => {
    failure ??= { error };
    onChange();
  };
  stream.on('error', onError);
  const detach = (): void => {
    if (!listening) return;
    listening = false;
    stream.off('readable', onChange).off('end', onChange).off('close', onChange);
  };
  // Paused mode with read(): the stream buffers up to its highWaterMark, then stops pulling from the socket.
  return {
    read: () => {
      if (!listening) {
        listening = true;
        stream.on('readable', onChange).on('end', onChange).on('close', onChange);
      }
      const result = poll();
      if (result === null) return new Promise((resolve, reject) => (waiting = { resolve, reject }));
      return 'error' in result ? Promise.reject(result.error) : Promise.resolve(result.chunk);
    },
    // the 'error' listener stays: a late error of the destroyed stream is swallowed, not uncaught
    cancel: () => void stream.destroy(),
    release: () => {
      detach();
      waiting = undefined;
      stream.off('error', onError);
    },
  };
}

function iterableReader(body: AsyncIterable<Uint8Array>): BodyReader {
  const iterator = body[Symbol.asyncIterator]();
  return {
    read: async () => {
      const result = await iterator.next();
      return result.done ? undefined : toBytes(result.value);
    },
    cancel: () => void Promise.resolve(iterator.return?.()).catch(() => undefined),
    release: () => undefined,
  };
}

/**
 * Wraps any supported body in a {@link BodyReader}. A Node `Readable` is destroyed on cancel, a web stream's reader
 * cancelled, and an async iterator's `return()` called (a generic iterator cannot be interrupted mid-`next()`).
 */
export function createBodyReader(body: BodySource): BodyReader {
  const candidate = body as unknown as Record<string, unknown>;
  if (typeof candidate.getReader === 'function') return webReader(body as ReadableStream<Uint8Array>);
  if (
    typeof candidate.read === 'function' &&
    typeof candidate.on === 'function' &&
    typeof candidate.destroy === 'function'
  ) {
    return nodeReader(body as Readable);
  }
  if (typeof candidate[Symbol.asyncIterator as unknown as string] === 'function' || Symbol.asyncIterator in candidate) {
    return iterableReader(body as AsyncIterable<Uint8Array>);
  }
  throw new TypeError('not a body');
}
