import type { z } from 'zod';
import { RequestError } from './errors.js';

/**
 * The one wording of a request body that fails its zod schema, for `parseChatRequest` (the endpoints) and NestJS's
 * `ZodValidationPipe`: a `RequestError('invalid_request')` (400) whose message lists the first five issues as
 * `path: message` (`(body)` for the body itself), then how many more, and whose `issues` hold them all.
 *
 * @param error - zod's error.
 * @param maxIssues - The most issues kept in `issues` (the message shows the first five and counts the rest).
 * @returns The request error to throw.
 */
export function toInvalidRequestError(error: z.ZodError, maxIssues = Infinity): RequestError {
  const all = error.issues;
  const issues = all.slice(0, maxIssues).map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`);
  const shown = issues.slice(0, 5).join('; ') + (all.length > 5 ? `; and ${all.length - 5} more` : '');
  return new RequestError('invalid_request', `invalid request body: ${shown}`, { issues });
}
