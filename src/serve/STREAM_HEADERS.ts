/**
 * The response headers of a resumable answer (see `ResumableConfig`): the stream's id on every streamed response, and
 * `local` when the answer can be resumed in this process only.
 */
export const STREAM_HEADERS = {
  /** `Chatflux-Stream-Id: <id>`: the id `GET /chat/streams/{id}` and `POST /chat/streams/{id}/cancel` take. */
  id: 'Chatflux-Stream-Id',
  /**
   * `Chatflux-Resumable: local`: this answer can be resumed on this instance only — the log is in memory, or the
   * shared log (Redis) is unreachable now. Absent: every instance can resume it.
   */
  resumable: 'Chatflux-Resumable',
} as const;
