import type { ChatClient } from './createChatClient.js';
import { createChatClient } from './createChatClient.js';
import type { RouteTarget } from './RouteTarget.js';
import type { PrefillDialect } from './withPrefill.js';

/**
 * The client a target is called with: its own, or for a `deepseek` prefill its prefill client (its `prefillBaseUrl`,
 * default its `baseUrl` + `/beta`), made on first use and kept on the target (the route's `close` closes it).
 *
 * @param target - The target.
 * @param dialect - The prefill the body carries, if any.
 * @returns The client to call.
 */
export function routeClientOf(target: RouteTarget, dialect: PrefillDialect | undefined): ChatClient {
  if (dialect !== 'deepseek') return target.client;
  target.prefillClient ??= createChatClient({
    ...target.config,
    retry: false,
    baseUrl: target.config.prefillBaseUrl ?? `${target.client.baseUrl.replace(/\/+$/, '')}/beta`,
  });
  return target.prefillClient;
}
