import { ConfigError, NetworkError, TimeoutError, isChatfluxError, type ChatfluxError } from '../core/errors.js';
import { redactSecrets } from '../core/redactSecrets.js';

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
  /** The failure happened while a response body was being read: a `NetworkError` says the answer was cut. */
  midResponse?: boolean;
}

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

// Failures of our own making: retrying cannot help and "upstream unreachable" would send the reader the wrong way.
const NOT_SENT = 'upstream request not sent';
const POOL_CLOSED =
  "the client's connection pool (undici dispatcher) was closed or destroyed; create a new client with createChatClient(), or pass an open `dispatcher`";
const CONFIG_FAILURES: ReadonlyMap<string, readonly [lead: string, fix: string]> = new Map([
  [
    'UND_ERR_INVALID_ARG',
    [
      NOT_SENT,
      'check the API key, `baseUrl` and `headers` for stray whitespace or line breaks (a .env file with CRLF line endings leaves "\\r" at the end of a value)',
    ],
  ],
  [
    'ERR_INVALID_URL',
    [NOT_SENT, "check `baseUrl`: it must be an absolute http(s) URL, e.g. 'https://api.deepseek.com'"],
  ],
  ['UND_ERR_DESTROYED', ['upstream request failed', POOL_CLOSED]],
  ['UND_ERR_CLOSED', ['upstream request failed', POOL_CLOSED]],
] as const);

/**
 * Maps a transport failure (undici's `ConnectTimeoutError`, `HeadersTimeoutError`, `SocketError`, `ECONNRESET`,
 * `ECONNREFUSED`, `terminated`, …) to the error family: a {@link TimeoutError} for undici's own deadlines; a
 * {@link ConfigError} (never retried) for a request undici refused to send (`UND_ERR_INVALID_ARG`, e.g. an API key
 * ending in `\r\n`; `ERR_INVALID_URL`) or a closed pool (`UND_ERR_DESTROYED`, `UND_ERR_CLOSED`), its message saying
 * what to fix and never echoing a header's value; a {@link NetworkError} with the original as `cause` for everything
 * else (`midResponse` when `context.midResponse`: a body read broke, the answer was cut). Chatflux errors pass
 * through unchanged.
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
  const known = code === undefined ? undefined : CONFIG_FAILURES.get(code);
  if (known !== undefined) {
    // undici names the offending header ("invalid authorization header"), never its value; scrubbed all the same.
    const message = `${known[0]} (${code}): ${detail || 'refused by the HTTP client'}; ${known[1]}.`;
    return new ConfigError(redactSecrets(message, context.secrets ?? []), { cause: error });
  }
  const what = context.midResponse === true ? 'upstream connection cut mid-answer' : 'upstream connection failed';
  const message = `${what}${code === undefined ? '' : ` (${code})`}: ${detail || 'unknown error'}`;
  return new NetworkError(redactSecrets(message, context.secrets ?? []), {
    cause: error,
    ...(context.midResponse === true ? { midResponse: true } : {}),
  });
}
