import type { ServerSentEvent } from './types.js';
import { SERVER_SENT_EVENT_BRAND } from './serverSentEventBrand.js';

/**
 * True when `value` was built with {@link serverSentEvent} (it carries the brand), false for any plain value, even
 * one that happens to have a `data` field.
 */
export function isServerSentEvent(value: unknown): value is ServerSentEvent<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { [SERVER_SENT_EVENT_BRAND]?: unknown })[SERVER_SENT_EVENT_BRAND] === true
  );
}
