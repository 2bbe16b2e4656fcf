import type { PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { RequestError } from '../core/errors.js';

/**
 * A Nest pipe validating a value (usually `@Body()`) with a zod schema; a failure is a chatflux
 * {@link RequestError} `invalid_request` whose `issues` are `path: message` lines (the message words them as the
 * Express router does), so that `@ChatJson()`,
 * `@ChatNdjson()` and `@ChatSse()` (or {@link ChatfluxExceptionFilter}) answer 400 in the endpoint's error format.
 *
 * ## Example
 * ```ts
 * @Post('ask') @ChatSse()
 * ask(@Body(new ZodValidationPipe(ChatRequest)) request: ChatRequest) { … }
 * ```
 */
export class ZodValidationPipe<Schema extends z.ZodType> implements PipeTransform<unknown, z.output<Schema>> {
  /** @param schema The zod schema the value must satisfy; its output (defaults applied, unknown keys dropped) is passed on. */
  constructor(private readonly schema: Schema) {}

  /** Parses `value`; throws a {@link RequestError} listing every issue. */
  transform(value: unknown): z.output<Schema> {
    const result = this.schema.safeParse(value);
    if (result.success) return result.data;
    // Worded as the Express router's `parseChatRequest`: the first five issues, then a count.
    const issues = result.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`);
    const shown = issues.slice(0, 5).join('; ') + (issues.length > 5 ? `; and ${issues.length - 5} more` : '');
    throw new RequestError('invalid_request', `invalid request body: ${shown}`, { issues });
  }
}
