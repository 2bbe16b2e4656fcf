import { NetworkError, TimeoutError, isChatfluxError, type ChatfluxError } from '../errors.js';
import { redactSecrets } from './redactSecrets.js';

/** What {@link toTransportError} needs to name a timeout and to scrub a message. */
export interface TransportErrorContext {
  /** The connect timeout in force, in ms (reported on `TimeoutError('connect')`). */
  connectTimeoutMs?: number;
  /** The response-headers timeout in force, in ms. */
  headersTimeoutMs?: number;
  /** The body timeout in force, in ms. */
  bodyTimeoutMs?: number;
  /** Literal secrets to keep out of the message. */
  secrets?: readonly string[];
}

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

/**
 * Maps a transport failure (undici's `ConnectTimeoutError`, `HeadersTimeoutError`, `SocketError`, `ECONNRESET`,
 * `ECONNREFUSED`, `terminated`, …) to the error family: a {@link TimeoutError} for undici's own deadlines, a
 * {@link NetworkError} with the original as `cause` for everything else. Chatflux errors pass through unchanged.
 */
export function toTransportError(error: unknown, context: TransportErrorContext = {}): ChatfluxError {
  if (isChatfluxError(error)) return error;
  const code = codeOf(error) ?? codeOf((error as { cause?: unknown } | null)?.cause);
  if (code === 'UND_ERR_CONNECT_TIMEOUT')
    return new TimeoutError('connect', context.connectTimeoutMs ?? 0, { cause: error });
  if (code === 'UND_ERR_HEADERS_TIMEOUT')
    return new TimeoutError('headers', context.headersTimeoutMs ?? 0, { cause: error });
  if (code === 'UND_ERR_BODY_TIMEOUT') return new TimeoutError('idle', context.bodyTimeoutMs ?? 0, { cause: error });
  const cause = (error as { cause?: unknown } | null)?.cause;
  const detail = [
    error instanceof Error ? error.message : String(error),
    cause instanceof Error ? cause.message : undefined,
  ]
    .filter((part): part is string => typeof part === 'string' && part.length > 0)
    .join(': ');
  const message = `upstream connection failed${code === undefined ? '' : ` (${code})`}: ${detail || 'unknown error'}`;
  return new NetworkError(redactSecrets(message, context.secrets ?? []), { cause: error });
}
