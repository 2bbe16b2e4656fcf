import { createBodyReader, type BodyReader, type BodySource } from '../source/createBodyReader.js';
import { bodyError } from './bodyError.js';
import { isInflateError } from './isInflateError.js';
import { parseByteLimit } from './parseByteLimit.js';
import { parseMediaType } from './parseMediaType.js';

/** A request body as a transport offers it to {@link readJsonChunks}: its headers and its bytes. */
export interface JsonBodySource {
  /** A request header by its lower-case name (its first value when repeated), or `undefined`. */
  header(name: string): string | undefined;
  /**
   * The body's bytes with the content coding `coding` removed, or `undefined` when the transport does not remove that
   * coding (the request is then refused, 415). `coding` is the request's `Content-Encoding`, trimmed and lower-case;
   * `'identity'` when absent. Called once.
   *
   * @param coding - The content coding to remove.
   */
  open(coding: string): BodySource | undefined;
  /**
   * Told when the read stops early (over the limit, past the deadline, bytes that are not UTF-8 or do not inflate),
   * after the reader let go of the body: the transport stops what it opened. Absent: the body is cancelled (a web
   * stream's reader cancelled, a node stream destroyed). Node gives one: its request's connection still carries the
   * response, so the request is left to the endpoint (which discards the rest or closes the connection), and only
   * an inflater is destroyed.
   */
  stop?(): void;
}

/** The limit and the deadline of {@link readJsonChunks}. */
export interface JsonChunksConfig {
  /** The most bytes, counted after the content coding is removed: a number, or a string such as `'1mb'` (`parseByteLimit`). */
  readonly limit: number | string;
  /** The longest wait for the whole body, in ms (`0`: none). */
  readonly timeoutMs: number;
}

/** The charsets of a JSON body (RFC 8259 §8.1: UTF-8), and none said: what a `charset` parameter may name. */
const UTF8 = new Set([undefined, '', 'utf-8', 'utf8']);

/** JSON's whitespace (RFC 8259 §2), then the first other character (`''` at the end). */
const FIRST_VALUE = /^[ \t\n\r]*([\s\S]?)/;

/**
 * The JSON body of a request, read once from its bytes under a limit and a deadline — the serving core's one reader,
 * which node's `readJsonBody` and the web's `readRequestJson` adapt (each only removes its content codings), with the
 * rules of Express's `express.json()`:
 *
 * 1. A `Content-Length` over the limit is refused before anything is read (`entity.too.large`, 413).
 * 2. A `charset` other than UTF-8 is refused (`charset.unsupported`, 415): RFC 8259 §8.1, JSON exchanged between
 *    systems is UTF-8. A content coding the transport does not remove is refused (`encoding.unsupported`, 415).
 * 3. The bytes are counted as they arrive, after inflating: past the limit the read stops and the body is cancelled
 *    (`entity.too.large`) — a small gzip bomb costs at most the limit. Bytes that do not inflate: `encoding.failed`
 *    (400); a body that breaks off: `request.aborted` (400); not complete within `timeoutMs`: `request.timeout` (408).
 * 4. The whole body is decoded as UTF-8 at once, strictly (a byte sequence that is not UTF-8 is
 *    `entity.parse.failed`, 400); one byte order mark at its start is dropped.
 * 5. An empty body is `{}` (a common client mistake `express.json()` forgives); otherwise the first value after JSON's
 *    whitespace must be an object or an array, and the whole text JSON (`entity.parse.failed`, 400).
 *
 * ```text
 * header(content-length) > limit? 413 ─► charset UTF-8? 415 ─► open(content-encoding)? 415
 *   ─► read: count ≤ limit 413, deadline 408, inflate 400 ─► UTF-8, strict 400 ─► '' → {} | { … } | [ … ] 400
 * ```
 *
 * @param source - The request's headers and bytes.
 * @param config - The limit and the deadline.
 * @returns The parsed body: an object or an array.
 * @throws The errors of `bodyError` (`type: 'entity.too.large'`, `'entity.parse.failed'`, `'charset.unsupported'`,
 *   `'encoding.unsupported'`, `'encoding.failed'`, `'request.aborted'`, `'request.timeout'`), which `toRequestError`
 *   words as the endpoint's 413, 400, 415 or 408.
 */
export async function readJsonChunks(source: JsonBodySource, config: JsonChunksConfig): Promise<unknown> {
  const limit = parseByteLimit(config.limit);
  const length = Number(source.header('content-length'));
  if (length > limit) throw bodyError('entity.too.large', 'request entity too large', { limit, length });
  const charset = parseMediaType(source.header('content-type'))?.charset;
  if (!UTF8.has(charset)) throw bodyError('charset.unsupported', `unsupported charset "${String(charset).toUpperCase()}"`, { charset });
  const coding = (source.header('content-encoding') ?? '').trim().toLowerCase() || 'identity';
  const body = source.open(coding);
  if (body === undefined) throw bodyError('encoding.unsupported', `unsupported content encoding "${coding}"`, { encoding: coding });
  const text = await readText(createBodyReader(body), limit, config.timeoutMs, coding !== 'identity', source.stop?.bind(source));
  if (text === '') return {};
  if (!/^[{[]$/.test(FIRST_VALUE.exec(text)?.[1] ?? '')) throw bodyError('entity.parse.failed', 'the body is neither a JSON object nor an array');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw bodyError('entity.parse.failed', 'the request body is not valid JSON', { cause: error });
  }
}

/** UTF-8, fatal: one decoder for every body (a decode without `stream` keeps no state between calls). */
const UTF8_DECODER = new TextDecoder('utf-8', { fatal: true });

/**
 * The body's text: its bytes counted against `limit` as they come, within `timeoutMs`, then decoded as UTF-8 at once
 * (fatal; a BOM dropped) — one decode of the whole body costs a tenth of a streaming decode of its chunks.
 */
async function readText(reader: BodyReader, limit: number, timeoutMs: number, inflated: boolean, stop: (() => void) | undefined): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline =
    timeoutMs > 0
      ? new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(bodyError('request.timeout', `request body not received within ${timeoutMs} ms`, { timeoutMs })), timeoutMs);
        })
      : undefined;
  deadline?.catch(() => undefined);
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    for (let chunk = await next(reader, deadline); chunk !== undefined; chunk = await next(reader, deadline)) {
      received += chunk.byteLength;
      if (received > limit) throw bodyError('entity.too.large', 'request entity too large', { limit, received });
      chunks.push(chunk);
    }
  } catch (error) {
    if (stop === undefined) reader.cancel();
    else {
      reader.release();
      stop();
    }
    throw toBodyError(error, inflated);
  } finally {
    clearTimeout(timer);
  }
  try {
    return UTF8_DECODER.decode(chunks.length === 1 ? chunks[0] : concat(chunks, received));
  } catch (error) {
    throw bodyError('entity.parse.failed', 'the request body is not UTF-8', { cause: error });
  }
}

/** `chunks` as one array of `length` bytes. */
function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const all = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}

const next = (reader: BodyReader, deadline: Promise<never> | undefined): Promise<Uint8Array | undefined> =>
  deadline === undefined ? reader.read() : Promise.race([reader.read(), deadline]);

/** A failed read as a body error: ours as it is; bytes that do not inflate; else a body that broke off. */
function toBodyError(error: unknown, inflated: boolean): unknown {
  if (typeof (error as { type?: unknown } | null)?.type === 'string') return error;
  // zlib's refusal (Node's streams and DecompressionStream); other runtimes' DecompressionStream throws a TypeError
  if (inflated && (isInflateError(error) || error instanceof TypeError)) return bodyError('encoding.failed', 'the request body does not inflate as its Content-Encoding says', { cause: error });
  return bodyError('request.aborted', 'the request body could not be read', { cause: error });
}
