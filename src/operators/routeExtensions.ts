import type { LlmClientOutput, LlmClientOutputChunk } from '../core/schemas/contract.js';

/** The extension fields a route puts on its answer, as OpenAI's shapes carry them: at the top level. */
export interface RouteExtensions {
  /** The provider preset of the target that finished the answer. */
  provider?: string;
  /** The target that finished it. */
  target?: string;
  /** Every attempt, in order. */
  attempts?: LlmClientOutput['attempts'];
  /** `true` when part of the usage is an estimate. */
  usage_estimated?: boolean;
}

/**
 * The route's extension fields of a contract answer or last chunk (`provider`, `target`, `attempts`,
 * `usage_estimated`), those present only: what `/v1/chat/completions` adds to its completion and to its last chunk,
 * beside the `model` that finished the answer.
 *
 * @param from - The `/chat/json` answer or the last `/chat/stream` chunk.
 * @returns The fields it has (`{}` when not through a route).
 */
export function routeExtensions(from: LlmClientOutput | LlmClientOutputChunk): RouteExtensions {
  const out: RouteExtensions = {};
  if (from.provider !== undefined) out.provider = from.provider;
  if (from.target !== undefined) out.target = from.target;
  if (from.attempts !== undefined) out.attempts = from.attempts;
  if (from.usage_estimated === true) out.usage_estimated = true;
  return out;
}
