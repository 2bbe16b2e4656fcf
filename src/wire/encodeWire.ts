import { asyncScheduler, catchError, endWith, map, of, type OperatorFunction, type SchedulerLike } from 'rxjs';
import { toErrorResponse } from '../core/toErrorResponse.js';
import type { WireFormat } from './WireFormat.js';
import { withHeartbeat } from './withHeartbeat.js';

/** Options of {@link encodeWire} (and so of `toSse` and `toNdjson`). */
export interface EncodeWireConfig {
  /** Write the wire's heartbeat after this many milliseconds of silence (default: none; only wires that have one). */
  heartbeatMs?: number;
  /** Where the heartbeat timer runs (default `asyncScheduler`; a `TestScheduler` in marble tests). */
  scheduler?: SchedulerLike;
  /** Literal secrets (API keys) to remove from the error frame's message, whatever their shape. */
  secrets?: readonly string[];
  /** Called with the original error before it becomes the error frame (to log it: the frame says little). */
  onError?: (error: unknown) => void;
}

/**
 * The operator face of a {@link WireFormat}: the same text the HTTP writer (`writeResponse`) puts on the wire for it,
 * as an Observable of strings. `toSse` is `encodeWire(SSE_WIRE)`, `toNdjson` is `encodeWire(NDJSON_WIRE)`.
 *
 * ```text
 * source:                      --a--b--|
 * encodeWire(wire):            --A--B--(T|)        A: wire.encode(a)   T: wire.trailer (nothing when it is '')
 *
 * source:                      --a--#
 * encodeWire(wire):            --A--(E|)           E: wire.encodeError(toErrorResponse(error).body)
 *
 * source:                      -----------a--|
 * encodeWire(wire, { heartbeatMs: 4 }): ----p---p--A--(T|)   p: wire.heartbeat
 * ```
 *
 * 1. Each value becomes `wire.encode(value)`; completion writes `wire.trailer` (when not empty) and completes.
 * 2. An error — from the source, or from `encode` (a value the wire cannot write) — becomes
 *    `wire.encodeError(toErrorResponse(error, config).body)` (secrets redacted, no stack), and the output completes.
 *    `config.onError` sees the original error first.
 * 3. With `heartbeatMs` and a wire that has a heartbeat, it is written after each `heartbeatMs` of silence.
 *
 * @param wire - The wire's formatter (`SSE_WIRE`, `NDJSON_WIRE`, `JSON_WIRE`).
 * @param config - Heartbeat interval and scheduler, secrets to redact, an error hook.
 * @returns An operator from values to the wire's text that never errors.
 * @throws ConfigError when `heartbeatMs` is given and is not a positive number.
 */
export function encodeWire<T>(wire: WireFormat<T>, config: EncodeWireConfig = {}): OperatorFunction<T, string> {
  const { heartbeatMs, scheduler = asyncScheduler, onError } = config;
  const heartbeat =
    heartbeatMs === undefined || wire.heartbeat === undefined
      ? undefined
      : withHeartbeat(heartbeatMs, wire.heartbeat, scheduler);
  const encode = (value: T): string => wire.encode(value);
  return (source) => {
    const values = source.pipe(map(encode));
    const text = (wire.trailer === '' ? values : values.pipe(endWith(wire.trailer))).pipe(
      catchError((error: unknown) => {
        onError?.(error);
        return of(wire.encodeError(toErrorResponse(error, config).body));
      }),
    );
    return heartbeat ? text.pipe(heartbeat) : text;
  };
}
