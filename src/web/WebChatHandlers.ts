/** A web-standard request handler: Hono's `app.fetch` shape, a Next.js route handler, `Bun.serve`'s and `Deno.serve`'s `fetch`. */
export type WebHandler = (request: Request) => Promise<Response>;

/** The three endpoints (and `POST /chat/token`) as web handlers: see `createChatHandlers`. */
export interface WebChatHandlers {
  /** `POST /chat/json`: one JSON object. */
  json: WebHandler;
  /** `POST /chat/stream`: NDJSON. */
  stream: WebHandler;
  /** `POST /chat/sse`, and `GET /chat/sse?q=<url-encoded JSON request>` (`EventSource`): Server-Sent Events. */
  sse: WebHandler;
  /**
   * `POST /chat/token` (with `apiKeys`): behind the key, `{ token, expiresAt }` for `GET /chat/sse?token=…`
   * (`EventSource`); without `apiKeys`, 400 `invalid_request` (the endpoints are open: do not route it).
   */
  token: WebHandler;
  /** OpenAI's `POST /v1/chat/completions`: one `chat.completion`, or `chat.completion.chunk`s with `"stream": true`. */
  completions: WebHandler;
  /** OpenAI's `GET /v1/models`: the configured models. */
  models: WebHandler;
  /**
   * The AI SDK's `POST /chat/ui` (`useChat`): the UI message stream; and its `GET /chat/ui/{chatId}/stream`
   * (`useChat({ resume: true })`: the chat's running answer from its start, else 204), by the request's method: mount
   * it on both.
   */
  ui: WebHandler;
  /** Anthropic's `POST /v1/messages`: one `message`, or Anthropic's events with `"stream": true`. */
  messages: WebHandler;
  /** Anthropic's `POST /v1/messages/count_tokens`: `{ input_tokens }`, an estimate. */
  countTokens: WebHandler;
  /**
   * `GET /chat/streams/{id}` (resume a resumable answer: SSE with `Accept: text/event-stream`, else NDJSON) and
   * `POST /chat/streams/{id}/cancel` (stop it), by the request's path and method: mount it on both. Without the
   * handlers' `resumable`: 404 (SSE: 204).
   */
  streams: WebHandler;
}
