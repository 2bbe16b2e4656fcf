import type { ChatClient } from '../client/createChatClient.js';
import type { RequestPolicyConfig } from '../core/RequestPolicyConfig.js';

/** The body of OpenAI's `GET /v1/models`. */
export interface OpenAiModelList {
  /** `list`. */
  object: 'list';
  /** One entry per model name. */
  data: Array<{ id: string; object: 'model'; created: number; owned_by: string }>;
}

/**
 * What `GET /v1/models` lists, for the node serving core and the web handlers alike: the default `model`, the
 * client's, the request policy's `allowedModels` and the extra `models` (a gateway's routes), each once, in that
 * order; `owned_by` is the client's provider.
 *
 * @param client - The client served from.
 * @param config - The endpoints' `model`, `requestPolicy` and `models`.
 * @returns The list, ready to serve.
 */
export function openAiModelList(
  client: Pick<ChatClient, 'model' | 'provider'>,
  config: { model?: string; requestPolicy?: RequestPolicyConfig; models?: readonly string[] },
): OpenAiModelList {
  const ids = new Set([config.model, client.model, ...(config.requestPolicy?.allowedModels ?? []), ...(config.models ?? [])]);
  const data = [...ids]
    .filter((id): id is string => id !== undefined && id !== '')
    .map((id) => ({ id, object: 'model' as const, created: 0, owned_by: client.provider }));
  return { object: 'list', data };
}
