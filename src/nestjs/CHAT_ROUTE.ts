import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The metadata key marking a handler whose response chatflux writes (the module's routes, and handlers decorated with
 * `@ChatJson()`, `@ChatNdjson()`, `@ChatSse()`). Nest copies a handler's metadata onto the route callback it
 * registers, so that a body-parser error, which Express raises before any route runs, can still be answered in the
 * route's error format (see `answerBodyParserErrors`).
 */
export const CHAT_ROUTE = 'chatflux:route';

/** What {@link CHAT_ROUTE} holds: how the route answers a request whose body the platform's parser refused. */
export interface ChatRoute {
  /** Writes the refusal (`error` is body-parser's) in the route's error format, after the checks the route makes first. */
  answerBodyError(request: IncomingMessage, response: ServerResponse, error: unknown): void;
}
