import type { PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import type { RequestError } from '../core/errors.js';
import { toInvalidRequestError } from '../core/toInvalidRequestError.js';

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
    const refusal: RequestError = toInvalidRequestError(result.error); // worded as the Express router's `parseChatRequest`
    throw refusal;
  }
}
