import { checkRequestPolicy } from './checkRequestPolicy.js';
import { RequestError } from './errors.js';
import type { RequestPolicyConfig } from './RequestPolicyConfig.js';
import type { ChatRequest } from './schemas/index.js';

const refuse = (field: string, message: string): never => {
  throw new RequestError('invalid_request', `invalid request body: ${field}: ${message}`, {
    issues: [`${field}: ${message}`],
  });
};

/**
 * Applies the operator's {@link RequestPolicyConfig} to a valid request: refuses a model not allowed, a
 * `max_tokens` / `max_completion_tokens` above the cap or an `n` above its cap (400 `invalid_request` naming the
 * field and the limit), sets `max_tokens` to the cap when the request asks for no limit, and removes the fields to
 * strip. Everything else is left as sent. Pure: returns a new object when it changes something.
 *
 * @param request - A request that passed the `ChatRequest` schema.
 * @param policy - The operator's policy (checked: `ConfigError` when it is wrong).
 * @returns The request to send upstream.
 * @throws RequestError `invalid_request` when the request asks for more than the policy allows.
 */
export function applyRequestPolicy(request: ChatRequest, policy: RequestPolicyConfig): ChatRequest {
  const { allowedModels, maxTokens, maxN, stripFields } = checkRequestPolicy(policy);
  if (allowedModels !== undefined && request.model !== undefined && !allowedModels.includes(request.model))
    refuse(
      'model',
      `${JSON.stringify(request.model)} is not allowed on this server (allowed: ${allowedModels.join(', ') || 'none'})`,
    );
  if (maxN !== undefined && typeof request.n === 'number' && request.n > maxN)
    refuse('n', `at most ${maxN} on this server, got ${request.n}`);
  let out = request;
  if (maxTokens !== undefined) {
    for (const field of ['max_tokens', 'max_completion_tokens'] as const) {
      const asked = request[field];
      if (typeof asked === 'number' && asked > maxTokens)
        refuse(field, `at most ${maxTokens} on this server, got ${asked}`);
    }
    if (request.max_tokens == null && request.max_completion_tokens == null) out = { ...out, max_tokens: maxTokens };
  }
  if (stripFields !== undefined && stripFields.some((field) => Object.prototype.hasOwnProperty.call(out, field))) {
    const copy: Record<string, unknown> = { ...out };
    for (const field of stripFields) delete copy[field];
    out = copy as ChatRequest;
  }
  return out;
}
