import { ACCEPT_RESTART_HEADER } from './acceptsRestart.js';
import type { ChatExchange } from './ChatExchange.js';
import { clientKeyOfKey } from './clientKeyOfKey.js';

/**
 * An exchange of Anthropic's `/v1/messages` as the core's checks read it: its `x-api-key` is the gateway's key, as a
 * Bearer token would be — so the one key check (`authorizeBearer`) and the per-client count (`clientKeyOfKey`) apply
 * to both — and `Chatflux-Accept-Restart` is not heard (Anthropic's stream cannot say "start again").
 *
 * 1. `Authorization` wins when both are sent; `x-api-key` alone reads as `Authorization: Bearer <x-api-key>`.
 * 2. Everything else (`anthropic-version`, `anthropic-beta`, the body, the transport's hold, the headers the core
 *    sets: the rate-limit fields) is the exchange's own.
 *
 * @param exchange - The transport's exchange.
 * @returns The same exchange, with those two headers read Anthropic's way.
 */
export function anthropicExchange<R>(exchange: ChatExchange<R>): ChatExchange<R> {
  const apiKey = exchange.header('x-api-key')?.trim();
  const viaApiKey = exchange.header('authorization') === undefined && apiKey !== undefined && apiKey !== '';
  return {
    request: exchange.request,
    method: exchange.method,
    url: exchange.url,
    header: (name) => {
      if (name === ACCEPT_RESTART_HEADER) return undefined;
      if (name === 'authorization' && viaApiKey) return `Bearer ${apiKey}`;
      return exchange.header(name);
    },
    hasBody: exchange.hasBody, // a data property: a getter would put every request's exchange in dictionary mode
    readBody: (limit, timeoutMs) => exchange.readBody(limit, timeoutMs),
    defaultClientKey: (byKey) => (byKey && viaApiKey ? clientKeyOfKey(apiKey) : exchange.defaultClientKey(byKey)),
    ...(exchange.hold === undefined ? {} : { hold: (release: () => void) => exchange.hold!(release) }),
    ...(exchange.refused === undefined ? {} : { refused: () => exchange.refused!() }),
    ...(exchange.setHeader === undefined ? {} : { setHeader: (name: string, value: string) => exchange.setHeader!(name, value) }),
  };
}
