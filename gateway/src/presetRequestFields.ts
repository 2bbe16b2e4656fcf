import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The own fields Express 5 and its router add to each request, in the order they add them (values: unset). */
const REQUEST_FIELDS = ['res', 'next', 'baseUrl', 'originalUrl', '_parsedUrl', 'params', 'route', 'body'] as const;

let matchedRoute: symbol | null | undefined;

/**
 * The router's private `matchedRoute` symbol (it names the matched route for tracing), from the copy of `router`
 * the installed Express loads; `null` when it cannot be found (then only that field is added late).
 */
const matchedRouteSymbol = (): symbol | null => {
  if (matchedRoute === undefined) {
    try {
      const base = typeof __filename === 'string' ? __filename : join(process.cwd(), 'index.js');
      const fromExpress = createRequire(createRequire(base).resolve('express'));
      const symbols = fromExpress(join(dirname(fromExpress.resolve('router')), 'lib', 'symbols.js')) as { matchedRoute?: unknown };
      matchedRoute = typeof symbols.matchedRoute === 'symbol' ? symbols.matchedRoute : null;
    } catch {
      matchedRoute = null;
    }
  }
  return matchedRoute;
};

/**
 * Gives a request and its response, before Express sees them, the own fields Express and its router will add, with
 * the values they read now (`undefined`, or the inherited `_eventsCount`, `statusCode`, `statusMessage`): the same
 * values, so nothing reads differently.
 *
 * Why: Express swaps the prototype of every request and response (`Object.setPrototypeOf`), and V8 does not share
 * hidden classes for fields added to an object after its prototype changed — each request and each response then
 * carries a hidden class and a descriptor array of its own (about 2 KB per open stream). With the fields in place
 * first, Express's writes are plain stores and every request shares one hidden class.
 *
 * @param req - The node request, untouched so far.
 * @param res - Its response, untouched so far.
 */
export function presetRequestFields(req: IncomingMessage, res: ServerResponse): void {
  const fields = req as unknown as Record<string | symbol, unknown>;
  for (const name of REQUEST_FIELDS) if (!Object.hasOwn(req, name)) fields[name] = undefined;
  // Inherited from EventEmitter's prototype (0) until the first listener of the request; the same value, own.
  if (!Object.hasOwn(req, '_eventsCount')) fields['_eventsCount'] = (req as unknown as { _eventsCount: unknown })._eventsCount;
  const symbol = matchedRouteSymbol();
  if (symbol !== null && !Object.hasOwn(req, symbol)) fields[symbol] = undefined;
  const response = res as unknown as Record<string, unknown>;
  if (!Object.hasOwn(res, 'locals')) response['locals'] = undefined;
  if (!Object.hasOwn(res, 'statusMessage')) response['statusMessage'] = res.statusMessage;
  if (!Object.hasOwn(res, 'statusCode')) response['statusCode'] = res.statusCode;
}
