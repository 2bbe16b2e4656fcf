import type { ChatClient } from './createChatClient.js';

/**
 * One {@link ChatClient} in front of several: a request whose `model` names one of `routes` (a `createChatRoute`,
 * or any client) goes there, every other request to `fallback`. What the gateway does with `CHATFLUX_ROUTES`; an
 * OpenAI-style endpoint can take it as its client too.
 *
 * @param routes - Clients by the model name clients ask for.
 * @param fallback - The client of every other model.
 * @returns A client dispatching by `request.model`; `close()` closes them all.
 */
export function routeByModel(routes: Readonly<Record<string, ChatClient>>, fallback: ChatClient): ChatClient {
  const pick = (request: unknown): ChatClient => {
    const model = (request as { model?: unknown } | null)?.model;
    return typeof model === 'string' && Object.prototype.hasOwnProperty.call(routes, model) ? routes[model]! : fallback;
  };
  return {
    provider: fallback.provider,
    baseUrl: fallback.baseUrl,
    model: fallback.model,
    chunks: (request, options) => pick(request).chunks(request, options),
    json: (request, options) => pick(request).json(request, options),
    stream: (request, options) => pick(request).stream(request, options),
    sse: (request, options) => pick(request).sse(request, options),
    close: async (graceMs) => {
      await Promise.all([fallback, ...Object.values(routes)].map((client) => client.close(graceMs)));
    },
  };
}
