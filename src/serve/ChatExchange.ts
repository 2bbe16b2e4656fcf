/**
 * One request as the serving core (`createServingCore`) sees it, whatever the transport: what a `node:http` request
 * or a web `Request` is made into by its adapter (`createChatEndpoints`, `createChatHandlers`).
 *
 * @typeParam R - The transport's own request, handed to a custom `clientKey`.
 */
export interface ChatExchange<R = unknown> {
  /** The transport's own request (node's `IncomingMessage`, a web `Request`): what a custom `clientKey` reads. */
  readonly request: R;
  /** The request's method (`POST`, `GET`, `HEAD`). */
  readonly method: string;
  /** The request's URL (a path with its query, or an absolute URL): `GET /chat/sse`'s `token` is read from it. */
  readonly url: string;
  /** A request header by its lower-case name (its first value when repeated), or `undefined`. */
  header(name: string): string | undefined;
  /** Whether the request has a body (node: a `Transfer-Encoding`, or a numeric `Content-Length`; web: a `body`). */
  readonly hasBody: boolean;
  /**
   * Reads the JSON body once, under `limit` and within `timeoutMs` (`0`: no deadline): the core's reader
   * (`readJsonChunks`, `express.json()`'s rules) over the transport's bytes, its content codings removed by the transport.
   *
   * @param limit - Bytes, or a string such as `'1mb'`.
   * @param timeoutMs - The longest wait for the whole body, in ms.
   * @returns The parsed body.
   * @throws The body errors (`bodyError`: `type: 'entity.too.large'`, …, `'request.timeout'`), or a platform parser's
   *   (`express.json()`'s, same `type`s), which the core words with
   *   `toRequestError`, or a `RequestError` already worded by the adapter.
   */
  readBody(limit: number | string, timeoutMs: number): Promise<unknown>;
  /**
   * The request's client key by default (without a custom `clientKey`): its hashed Bearer key when `byKey`, else
   * what the transport knows of the client (node: its remote address; web: one shared key).
   *
   * @param byKey - Whether `apiKeys` are configured (clients are told apart by their keys).
   */
  defaultClientKey(byKey: boolean): string;
  /**
   * Keeps a client's place (`maxConcurrentPerClient`) until the response is closed: node frees it at the response's
   * `close`. Absent: the core frees it when the response has ended (the reply's `end`).
   */
  hold?(release: () => void): void;
  /**
   * Sets a response header before the response is committed (the rate-limit fields of `limits`, known once the
   * request is admitted): node sets it on the response, the web handlers on the `Response` they make. Absent: not sent.
   */
  setHeader?(name: string, value: string): void;
  /** Told when the request is refused (its checks failed): node closes the connection of a body not read yet. */
  refused?(): void;
}
