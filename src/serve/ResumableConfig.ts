import type { StreamLog } from '../store/StreamLog.js';

/**
 * Options of resumable answers (the serving core's `resumable`): the streamed endpoints (`POST /chat/sse`,
 * `GET /chat/sse`, `POST /chat/stream`) log what they write to a {@link StreamLog}, so that a client that lost its
 * connection resumes where it was — with `Last-Event-ID` on the same URL, or `GET /chat/streams/{id}` — and
 * `POST /chat/streams/{id}/cancel` stops an answer wherever it is produced.
 */
export interface ResumableConfig {
  /**
   * Where the answers are logged. Default: an in-memory log of this process (`createMemoryStreamLog`, bounded);
   * a Redis log (`createRedisStreamLog`) lets every instance resume every answer.
   */
  log?: StreamLog;
  /**
   * How long an answer goes on with no reader attached (its client went away and nobody resumed it) before its
   * upstream is aborted and it ends as `abandoned`, in ms. Default 60000; `0`: abort as soon as the client leaves
   * (no resume after a disconnect, as without `resumable`); `Infinity`: never (only a cancel stops it).
   */
  abandonAfterMs?: number;
  /** How long a finished answer stays resumable, in ms, for the default in-memory log. Default 600000; at most 86400000. */
  retentionMs?: number;
  /**
   * How long a client should wait before it retries a resume the log cannot serve now (the shared log is
   * unreachable from this instance), in ms: SSE's `retry:`, NDJSON's `Retry-After`. Default 2000.
   */
  retryAfterMs?: number;
}
