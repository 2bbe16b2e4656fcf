import type { Readable } from 'node:stream';

/** A body `fromBody` accepts: a web `ReadableStream`, a Node `Readable`, or any `AsyncIterable` of bytes. */
export type BodySource = ReadableStream<Uint8Array> | Readable | NodeJS.ReadableStream | AsyncIterable<Uint8Array>;

/** One pull-based reader over any {@link BodySource}: `read()` resolves the next chunk or `undefined` at the end. */
export interface BodyReader {
  read(): Promise<Uint8Array | undefined>;
  /** Releases the body at once, even while a `read()` is pending (a pending read may then never settle). */
  cancel(): void;
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
  };
}

function nodeReader(stream: Readable): BodyReader {
  // Paused mode with read(): the stream buffers up to its highWaterMark, then stops pulling from the socket.
  return {
    read: () =>
      new Promise<Uint8Array | undefined>((resolve, reject) => {
        const attempt = (): boolean => {
          if (stream.errored) return settle(() => reject(stream.errored));
          const chunk: unknown = stream.read();
          if (chunk !== null) return settle(() => resolve(toBytes(chunk)));
          if (stream.readableEnded) return settle(() => resolve(undefined));
          if (stream.destroyed)
            return settle(() =>
              reject(Object.assign(new Error('premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })),
            );
          return false;
        };
        const onError = (error: unknown): void => void settle(() => reject(error));
        const onChange = (): void => void attempt();
        const settle = (done: () => void): true => {
          stream.off('readable', onChange).off('end', onChange).off('close', onChange).off('error', onError);
          done();
          return true;
        };
        stream.on('readable', onChange).on('end', onChange).on('close', onChange).on('error', onError);
        attempt();
      }),
    cancel: () => {
      // keep a late 'error' from becoming an uncaught exception once nobody listens
      stream.on('error', () => undefined);
      stream.destroy();
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
