import type { HttpServer } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toRequestError } from '../node/toRequestError.js';
import { CHAT_ROUTE, type ChatRoute } from './CHAT_ROUTE.js';

/** The parts of Express 5 (and its `router`) read here. */
interface ExpressLayer {
  match(path: string): boolean;
  route?: { methods?: Record<string, boolean>; stack?: Array<{ handle?: unknown }> };
}
type ExpressRequest = IncomingMessage & { path?: string };
type ExpressApp = { router?: { stack?: ExpressLayer[] } };

/** Express apps that already have the error middleware (one per app, however many modules ask). */
const installed = new WeakSet<object>();

/** The chatflux route (module route or decorated handler) that `req` was on its way to, if any. */
const chatRouteOf = (app: ExpressApp, req: ExpressRequest): ChatRoute | undefined => {
  if (req.method !== 'POST' || req.path === undefined) return undefined;
  for (const layer of app.router?.stack ?? []) {
    if (layer.route?.methods?.['post'] !== true) continue;
    for (const { handle } of layer.route.stack ?? []) {
      const route = typeof handle === 'function' ? (Reflect.getMetadata(CHAT_ROUTE, handle) as ChatRoute | undefined) : undefined;
      if (route !== undefined && layer.match(req.path)) return route;
    }
  }
  return undefined;
};

/**
 * With Nest's default body parser (`NestFactory.create(App)` without `bodyParser: false`), Express parses every body
 * before any route runs, and passes a failure (malformed JSON, a body over Nest's 100 kb, an unsupported charset) to
 * Nest's global error handler, which answers in Nest's own format. This installs, on the Express platform, an error
 * middleware ahead of that handler: a body-parser error on a chatflux route (the module's, or a decorated handler) is
 * answered by the route itself — the module's routes check the key (401) and the content type (415) first, as the
 * router does — with the router's status, message and error format. Other errors and other routes go on to Nest.
 *
 * Must run after Nest registered the routes and before it registers its error handler: `onModuleInit` is that point.
 *
 * @param adapter The application's HTTP adapter (`HttpAdapterHost.httpAdapter`); nothing happens on other platforms.
 */
export function answerBodyParserErrors(adapter: HttpServer | undefined): void {
  if (adapter?.getType() !== 'express') return;
  const app = adapter.getInstance() as ExpressApp;
  if (installed.has(app)) return;
  installed.add(app);
  // Four parameters: Express calls it with the error of the layers before it (the body parsers among them).
  adapter.use((error: unknown, req: ExpressRequest, res: ServerResponse, next?: unknown): void => {
    const route = res.headersSent || toRequestError(error, 0) === undefined ? undefined : chatRouteOf(app, req);
    if (route === undefined) return (next as (error: unknown) => void)(error);
    route.answerBodyError(req, res, error);
  });
}
