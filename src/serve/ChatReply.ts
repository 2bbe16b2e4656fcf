import type { Observable } from 'rxjs';
import type { DemandGate } from '../core/createDemandGate.js';
import type { ChatWireFormat } from './SERVING_WIRES.js';
import type { WriteOutcome } from './WriteOutcome.js';

/** The writer options every response of one wire shares (made once per wire by the serving core). */
export interface ReplyOptions {
  /** Literal secrets to redact from error messages. */
  readonly secrets: readonly string[];
  /** Ends the response early (graceful shutdown, the config's `signal`). */
  readonly signal?: AbortSignal;
  /** Silence (ms) after which the wire's heartbeat is written; `0` disables. */
  readonly heartbeatMs: number;
  /** Called each time the wire's heartbeat is written. */
  readonly onHeartbeat?: () => void;
}

/**
 * What the serving core (`createServingCore`) answers one exchange with, for its transport's writer to write: the
 * wire, the source (whose error before its first value is the refusal, with its real status), the demand gate, when
 * the heartbeat may start, and the end hook.
 */
export interface ChatReply {
  /** The wire to write in (`SERVING_WIRES`; node's `CHAT_WIRES` for its writer). */
  readonly wire: ChatWireFormat;
  /** The values to write: the checks run on subscribe, then the client's answer. */
  readonly source: Observable<unknown>;
  /** The request's demand gate, shared by the client and the writer (absent: none). */
  readonly demand?: DemandGate;
  /** No heartbeat before this settles (the request is read and checked). */
  readonly heartbeatAfter?: PromiseLike<unknown>;
  /** Called with each value before it is written (for the log entry's usage and route). */
  readonly onValue?: (value: unknown) => void;
  /** The wire's shared writer options. */
  readonly options: ReplyOptions;
  /** Headers to set on the response, whatever its status (`Cache-Control`, `Connection: close` while draining). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Set when the answer is an empty 204 (an `EventSource` reconnecting to a finished answer): write that, not the
   * source, and end with this outcome.
   */
  readonly noContent?: WriteOutcome;
  /**
   * Set when the answer is "come back later" to an SSE client (a resume the shared log cannot serve now): write 200
   * with the SSE headers, the body `retry: <retryMs>\n\n` and the end — an `EventSource` reconnects after that
   * long, with its `Last-Event-ID` — not the source.
   */
  readonly retryMs?: number;
  /** Call once, when the response has ended (or the client went away): frees the client's place, logs, ends tracking. */
  end(outcome: WriteOutcome): void;
}
