import type { RouteAttempt, Usage } from '../core/schemas/index.js';
import type { WriteOutcome } from './WriteOutcome.js';

/** The three endpoints, OpenAI's, Anthropic's and the AI SDK's (`/chat/ui`). */
export type ChatEndpoint = '/chat/json' | '/chat/stream' | '/chat/sse' | '/v1/chat/completions' | '/v1/messages' | '/chat/ui';

/** The one structured log entry per request. It never contains a key; error messages are redacted. */
export interface ChatRequestLog {
  /** Which endpoint served the request. */
  endpoint: ChatEndpoint;
  /** `POST`, or `GET` for `GET /chat/sse`. */
  method: string;
  /** The status sent (200 once a stream was committed, even if it then ended with an in-band error); 0: none. */
  status: number;
  /** How the response ended (see `WriteOutcome`). */
  result: WriteOutcome['result'];
  /** The model asked for (the request's, else the default). */
  model?: string;
  /** Milliseconds from the request to the first value (chunk, or the whole answer for `/chat/json`). */
  firstChunkMs?: number;
  /** Milliseconds from the request to the end of the response. */
  durationMs: number;
  /** Values written (chunks, or 1 for `/chat/json`). */
  chunks: number;
  /** Body bytes written. */
  bytes: number;
  /** Token usage, when the upstream reported it. */
  usage?: Usage;
  /** Through a route: the target that finished the answer. */
  target?: string;
  /** Through a route: every attempt, in order (`{target, provider, model, outcome, error?, status?}`). */
  attempts?: RouteAttempt[];
  /** The error's public code and redacted message, when the response failed. */
  error?: {
    /** The public error code (as in the error body). */
    code: string;
    /** The redacted message. */
    message: string;
    /**
     * The error's kind from a bounded set: its chatflux code (`upstream_http`, `upstream_error`, `timeout`, …), else
     * `_OTHER`. Unlike `code` — which passes a provider's own code on, and a provider can put anything there — it
     * can label a metric (`error.type`).
     */
    kind: string;
  };
}
