import type { WriteResponseConfig } from '../node/index.js';

/**
 * Options of `@ChatJson()`, `@ChatNdjson()`, `@ChatSse()` — those of the node writers, except the demand gate,
 * which is the request's (see `@Demand()`): `heartbeatMs` (SSE only; default 15000, `0` disables), `secrets` to
 * redact from error messages, a `signal` that ends responses in flight (graceful shutdown), `onValue` — and
 * `bodyLimit`, for an app without a body parser (`bodyParser: false`).
 */
export type ChatWireConfig = Omit<WriteResponseConfig, 'demand'> & {
  /**
   * When nothing parsed the JSON body yet (`NestFactory.create(App, { bodyParser: false })`), the handler's
   * interceptor parses it — after the guards, before the pipes — with the Express router's parser and this limit
   * (bytes, or a string such as `'1mb'`; default `'1mb'`); a refusal is a 400/413/415 in the handler's format.
   */
  bodyLimit?: number | string;
};
