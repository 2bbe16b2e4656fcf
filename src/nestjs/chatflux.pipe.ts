import type { PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { checkRequestBounds } from '../core/checkRequestBounds.js';
import type { RequestError } from '../core/errors.js';
import type { RequestLimitsConfig } from '../core/requestLimits.js';
import { resolveRequestLimits } from '../core/resolveRequestLimits.js';
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
  private readonly limits: Readonly<Required<RequestLimitsConfig>>;

  /**
   * @param schema The zod schema the value must satisfy; its output (defaults applied, unknown keys dropped) is passed on.
   * @param limits Bounds checked before the schema runs (default `DEFAULT_REQUEST_LIMITS`).
   */
  constructor(
    private readonly schema: Schema,
    limits: RequestLimitsConfig = {},
  ) {
    this.limits = resolveRequestLimits(limits);
  }

  /** Checks `value` against the request limits, then parses it; throws a {@link RequestError} listing the first issues. */
  transform(value: unknown): z.output<Schema> {
    checkRequestBounds(value, this.limits);
    const result = this.schema.safeParse(value);
    if (result.success) return result.data;
    // Worded as the Express router's `parseChatRequest`: the first five issues, then a count.
    const refusal: RequestError = toInvalidRequestError(result.error, this.limits.maxIssues);
    throw refusal;
  }
}
