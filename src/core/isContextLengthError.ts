import { isUpstreamHttpError, isUpstreamStreamError } from './errors.js';
import { isNamedUpstreamError } from './isNamedUpstreamError.js';

const CODES = ['context_length_exceeded', 'context_window_exceeded', 'string_above_max_length'];
// OpenAI/DeepSeek: "This model's maximum context length is …"; Moonshot: "… exceeded model token limit: 8192".
const TEXT = /maximum context length|context[ _]length[ _]exceeded|exceeded model token limit|context window|prompt is too long/i;

/**
 * True when a provider refused the request because the prompt does not fit the model's context window: an
 * `UpstreamHttpError` (or in-band error) whose `code`/`type` is `context_length_exceeded` (OpenAI and most
 * OpenAI-compatible servers), or whose message says so (DeepSeek "maximum context length", Moonshot "exceeded model
 * token limit"). A route sends such a request on to a target declared larger (`contextWindow`).
 *
 * @param error - Any error.
 * @returns Whether it is a context-length refusal.
 */
export function isContextLengthError(error: unknown): boolean {
  if (!isUpstreamHttpError(error) && !isUpstreamStreamError(error)) return false;
  return isNamedUpstreamError(error, CODES) || TEXT.test(error.message);
}
