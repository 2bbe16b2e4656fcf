import { Observable, type OperatorFunction } from 'rxjs';
import { createOperatorSubscriber } from '../core/createOperatorSubscriber.js';
import { ConfigError, StreamProtocolError } from '../core/errors.js';
import { createChoiceEnds } from './createChoiceEnds.js';
import { createChunkScanner, type ChunkScanner } from './createChunkScanner.js';
import { createRepeatRedactor } from './createRepeatRedactor.js';
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
   * Literal secrets (the upstream API key) to remove from error messages and snippets, and from each chunk's `id`,
   * `model` and `system_fingerprint`, whatever their shape — an upstream may quote the key it was sent. Things shaped
   * like keys (`sk-…`, `Bearer …`) are always removed.
   */
  secrets?: readonly string[];
  /**
   * Require `data: [DONE]` (default `false`). By default a stream that ends (EOF) after every choice it started has
   * its `finish_reason` is a complete answer — some providers never send `[DONE]`, and no text follows a
   * `finish_reason`. With `true`, every end without `[DONE]` is `stream_incomplete`, as before.
   */
  requireDone?: boolean;
  /**
   * The request asked for usage (`stream_options.include_usage`; `createChatClient` always does). When such a
   * stream ends without `[DONE]` after its finish reasons but before any usage came, one last chunk
   * `{"object":"chat.completion.chunk","choices":[],"usage_missing":true}` says so (the outputs carry it as
   * `usage_missing: true`): the answer is complete, only its usage is unknown. Default `false`.
   */
  usageRequested?: boolean;
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
 *    code (secrets redacted). A chunk's `id`, `model` and `system_fingerprint` — strings a server passes on to its
 *    clients — are redacted too (a provider may echo the key it was sent), once per distinct value.
 * 4. Bad JSON → `StreamProtocolError('malformed_json')`; a wrong shape → `StreamProtocolError('schema_violation')`
 *    naming the path. Errors carry the offending text, truncated, in `snippet`. `content` may be a string or an
 *    array of parts (Mistral's `text` / `thinking` parts): both are chunks, read by the output operators.
 * 5. The end of the source without `[DONE]`: after every choice the stream started has a non-empty
 *    `finish_reason`, the output completes — a complete answer (some providers never send `[DONE]`; with
 *    `usageRequested` and no usage seen, a last `{choices: [], usage_missing: true}` chunk first). Before that (a
 *    choice still open, or no choice at all) → `StreamProtocolError('stream_incomplete')`: a cut stream is never a
 *    finished answer. `requireDone: true` makes every end without `[DONE]` `stream_incomplete`.
 * 6. Usage, wherever the provider puts it, is also at the top level: when a chunk has no top-level `usage`, Groq's
 *    `x_groq.usage` or else a choice's `usage` (Moonshot) is copied there; the original stays where it was.
 * 7. Events of any other type (`event: ping`, …) are skipped. Source errors pass through.
 *
 * | how the stream ends | result |
 * |---|---|
 * | `data: [DONE]` | completes (the source is unsubscribed at once) |
 * | EOF after every started choice's `finish_reason` | completes (`requireDone: true`: `stream_incomplete`) |
 * | EOF with a choice still open, or before any choice | `stream_incomplete` |
 * | `event: error` or `{"error":…}` | `UpstreamStreamError` |
 *
 * ## Example
 * ```ts
 * requestCompletion(request, config).pipe(parseSse(), decodeChunk(), accumulateDeltas(), last())
 * ```
 *
 * @param config - Whether to validate, how long error snippets may be, secrets to redact, and the end-of-stream rule.
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
  const requireDone = config.requireDone ?? false;
  if (typeof requireDone !== 'boolean')
    throw new ConfigError('decodeChunk: requireDone must be a boolean (true: only data: [DONE] ends an answer).');
  const usageRequested = config.usageRequested ?? false;
  if (typeof usageRequested !== 'boolean')
    throw new ConfigError(
      "decodeChunk: usageRequested must be a boolean (the request's stream_options.include_usage).",
    );
  const snippet = (text: string): string => truncate(redactSecrets(text, secrets), maxSnippet);

  const decode = (data: string, scanner: ChunkScanner): ChatCompletionChunk => {
    const scanned = scanner.scan(data);
    if (scanned !== undefined) return scanned; // validated by construction; no usage to lift (its head has none)
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
      const groq = chunk.x_groq?.usage;
      if (groq !== undefined && groq !== null) chunk.usage = groq;
      else {
        const choices = chunk.choices;
        for (let i = 0; i < choices.length; i++) {
          const usage = choices[i]?.usage;
          if (usage !== undefined && usage !== null) {
            chunk.usage = usage;
            break;
          }
        }
      }
    }
    return chunk;
  };

  return (source) =>
    new Observable<ChatCompletionChunk>((subscriber) => {
      let count = 0;
      const ends = createChoiceEnds();
      let usageSeen = false;
      const scanner = createChunkScanner();
      // An upstream may echo the key it was sent in the strings a server passes on: scrubbed once per distinct value.
      const cleanId = createRepeatRedactor(secrets);
      const cleanModel = createRepeatRedactor(secrets);
      const cleanFingerprint = createRepeatRedactor(secrets);
      source.subscribe(
        createOperatorSubscriber<SseEvent>(
          subscriber,
          (event) => {
            const type = event.event;
            if (type === undefined || type === 'message') {
              if (event.data === DONE) {
                subscriber.complete(); // unsubscribes the source chain now
                return;
              }
              count++;
              const chunk = decode(event.data, scanner);
              if (typeof chunk.id === 'string') chunk.id = cleanId(chunk.id);
              if (typeof chunk.model === 'string') chunk.model = cleanModel(chunk.model);
              if (typeof chunk.system_fingerprint === 'string')
                chunk.system_fingerprint = cleanFingerprint(chunk.system_fingerprint);
              ends.note(chunk.choices);
              if (!usageSeen && chunk.usage != null) usageSeen = true;
              subscriber.next(chunk);
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
          () => {
            if (!requireDone && ends.allFinished()) {
              if (usageRequested && !usageSeen)
                subscriber.next({ object: 'chat.completion.chunk', choices: [], usage_missing: true });
              return; // a complete answer: the completion is passed on
            }
            throw new StreamProtocolError(
              'stream_incomplete',
              `the upstream stream ended without data: [DONE] after ${count} chunk(s); the answer may be cut short`,
            );
          },
        ),
      );
    });
}
