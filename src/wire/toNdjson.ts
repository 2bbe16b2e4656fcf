import type { OperatorFunction } from 'rxjs';
import { encodeWire } from './encodeWire.js';
import { NDJSON_WIRE } from './NDJSON_WIRE.js';

/** Options of {@link toNdjson}. */
export interface ToNdjsonConfig {
  /** Literal secrets (API keys) to remove from the error line's message, whatever their shape. */
  secrets?: readonly string[];
  /** Called with the original error before it becomes the error line (to log it: the line says little). */
  onError?: (error: unknown) => void;
}

/**
 * Encodes values as NDJSON text — the `/chat/stream` wire: one `JSON.stringify(value) + "\n"` per value. The text is
 * `NDJSON_WIRE`'s, the formatter `sendNdjson` writes with: what this operator emits is byte for byte what the
 * `/chat/stream` endpoint sends.
 *
 * An error notification becomes the spec's error line, and the output then completes: the client reads the error
 * in band, as the last line.
 *
 * ```text
 * source:     --a--b--#              # : an UpstreamStreamError
 * toNdjson(): --A--B--(E|)           A: '{"message":…,"done":false,"index":0}\n'
 *                                    E: '{"error":{"message":"…","type":"upstream_error","code":"…"},"done":true}\n'
 * ```
 *
 * 1. Each value becomes one line; nothing is added at completion.
 * 2. An error (from the source, or a value without a JSON form) becomes one line
 *    `{"error":{"message","type","code"},"done":true}\n` (see `toErrorResponse`: secrets redacted, no stack), then
 *    the output completes. `config.onError` sees the original error first.
 * 3. A value never spans lines: `JSON.stringify` escapes CR and LF.
 *
 * ## Example
 * ```ts
 * client.chunks(request).pipe(toOutputChunks(), toNdjson()).subscribe((line) => res.write(line));
 * ```
 *
 * @param config - Secrets to redact, and an error hook.
 * @returns An operator from values to NDJSON lines that never errors.
 */
export function toNdjson<T>(config: ToNdjsonConfig = {}): OperatorFunction<T, string> {
  return encodeWire<T>(NDJSON_WIRE, config);
}
