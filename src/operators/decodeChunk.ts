import { Observable, ignoreElements, tap, type OperatorFunction } from 'rxjs';
import { ConfigError, StreamProtocolError } from '../core/errors.js';
import { matchesChunkShape } from './matchesChunkShape.js';
import { redactSecrets } from '../core/redactSecrets.js';
import { truncate } from '../core/truncate.js';
import { upstreamStreamErrorFrom } from './upstreamStreamErrorFrom.js';
import { ChatCompletionChunk } from '../core/schemas/upstream.js';
import type { SseEvent } from '../core/types.js';

/** Options of {@link decodeChunk}. */
export interface DecodeChunkConfig {
  /**
   * Check every chunk against the `ChatCompletionChunk` schema (default `true`). With `false` any JSON object is
   * passed on as a chunk (an absent `choices` still becomes `[]`); use it only for upstreams you trust.
   */
  validate?: boolean;
  /** The most characters of offending input an error carries in `snippet` (default 200). */
  maxSnippet?: number;
  /**
   * Literal secrets (the upstream API key) to remove from error messages and snippets, whatever their shape — an
   * upstream may quote the key it was sent. Things shaped like keys (`sk-…`, `Bearer …`) are always removed.
   */
  secrets?: readonly string[];
}

const DONE = '[DONE]';

/**
 * Decodes the SSE events of an OpenAI-compatible stream into `ChatCompletionChunk`s, and ends at `data: [DONE]`.
 *
 * Events in, chunks out, until the provider says it is done; anything else is an error.
 *
 * ```text
 * source:      --a--b--D--c--|      (D = data: [DONE])
 * decodeChunk:
 * result:      --A--B--|
 * source sub:  ^-------!            (unsubscribed at [DONE])
 * ```
 *
 * 1. A message event (no `event`, or `event: message`) whose data is exactly `[DONE]` completes the output and
 *    unsubscribes from the source at once (so the HTTP body is cancelled); later events are never read.
 * 2. Other message events are JSON chunks: checked against the lenient `ChatCompletionChunk` schema (unknown fields
 *    kept, `null` or omitted alike, absent `choices` → `[]`). When the top level has no `usage` but a choice has one
 *    (Moonshot), it is copied to the top level; the choice keeps its own.
 * 3. `event: error`, or a payload with an `error` member → `UpstreamStreamError` with the provider's message, type and
 *    code (secrets redacted).
 * 4. Bad JSON → `StreamProtocolError('malformed_json')`; a wrong shape → `StreamProtocolError('schema_violation')`
 *    naming the path; the end of the source before `[DONE]` → `StreamProtocolError('stream_incomplete')`. Errors
 *    carry the offending text, truncated, in `snippet`.
 * 5. Events of any other type (`event: ping`, …) are skipped. Source errors pass through.
 *
 * ## Example
 * ```ts
 * requestCompletion(request, config).pipe(parseSse(), decodeChunk(), accumulateDeltas(), last())
 * ```
 *
 * @param config - Whether to validate, how long error snippets may be, and secrets to redact.
 * @returns An operator from {@link SseEvent}s to `ChatCompletionChunk`s.
 */
export function decodeChunk(config: DecodeChunkConfig = {}): OperatorFunction<SseEvent, ChatCompletionChunk> {
  const validate = config.validate ?? true;
  const maxSnippet = config.maxSnippet ?? 200;
  if (typeof validate !== 'boolean')
    throw new ConfigError('decodeChunk: validate must be a boolean; omit it to validate.');
  if (!Number.isInteger(maxSnippet) || maxSnippet < 0)
    throw new ConfigError(`decodeChunk: maxSnippet must be a non-negative integer, got ${String(maxSnippet)}.`);
  const secrets = config.secrets ?? [];
  if (!Array.isArray(secrets) || secrets.some((secret) => typeof secret !== 'string'))
    throw new ConfigError('decodeChunk: secrets must be an array of strings (e.g. [apiKey]).');
  const snippet = (text: string): string => truncate(redactSecrets(text, secrets), maxSnippet);

  const decode = (data: string): ChatCompletionChunk => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch (cause) {
      throw new StreamProtocolError('malformed_json', 'an SSE event of the upstream stream is not valid JSON', {
        cause,
        snippet: snippet(data),
      });
    }
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      const error = (parsed as { error?: unknown }).error;
      if (error !== undefined && error !== null) throw upstreamStreamErrorFrom(parsed, data, secrets);
    }
    let chunk: ChatCompletionChunk;
    if (
      matchesChunkShape(parsed) ||
      (!validate && typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
    ) {
      chunk = parsed as ChatCompletionChunk;
      if (chunk.choices == null) chunk.choices = []; // absent, or null from an unvalidated upstream
    } else {
      const result = ChatCompletionChunk.safeParse(parsed);
      if (!result.success) {
        const issue = result.error.issues[0];
        const where = issue === undefined || issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.');
        throw new StreamProtocolError(
          'schema_violation',
          `an upstream chunk does not match ChatCompletionChunk at ${where}: ${issue?.message ?? 'invalid'}`,
          { cause: result.error, snippet: snippet(data) },
        );
      }
      chunk = result.data;
    }
    if (chunk.usage === undefined || chunk.usage === null) {
      const choices = chunk.choices;
      for (let i = 0; i < choices.length; i++) {
        const usage = choices[i]?.usage;
        if (usage !== undefined && usage !== null) {
          chunk.usage = usage;
          break;
        }
      }
    }
    return chunk;
  };

  return (source) =>
    new Observable<ChatCompletionChunk>((subscriber) => {
      let count = 0;
      source
        .pipe(
          tap({
            next(event) {
              const type = event.event;
              if (type === undefined || type === 'message') {
                if (event.data === DONE) {
                  subscriber.complete(); // unsubscribes the source chain now
                  return;
                }
                count++;
                subscriber.next(decode(event.data));
              } else if (type === 'error') {
                let body: unknown;
                try {
                  body = JSON.parse(event.data);
                } catch {
                  body = undefined; // not JSON: the text itself is the message
                }
                throw upstreamStreamErrorFrom(body, event.data, secrets);
              }
            },
            complete() {
              throw new StreamProtocolError(
                'stream_incomplete',
                `the upstream stream ended without data: [DONE] after ${count} chunk(s); the answer may be cut short`,
              );
            },
          }),
          ignoreElements(),
        )
        .subscribe(subscriber);
    });
}
