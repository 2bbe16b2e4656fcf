import { truncate } from '../core/truncate.js';
import type { ChatRequestLog } from './ChatRequestLog.js';

/** Strings nested deeper than this in a log entry (an upstream's `usage` extras) are dropped, not walked. */
const MAX_DEPTH = 4;

const cap = (value: unknown, max: number, depth: number): unknown => {
  if (typeof value === 'string') return truncate(value, max);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(value)) return value.slice(0, 16).map((item) => cap(item, max, depth + 1));
  const out: Record<string, unknown> = {};
  let fields = 0;
  for (const [key, field] of Object.entries(value)) {
    if (++fields > 32) break;
    out[truncate(key, max)] = cap(field, max, depth + 1);
  }
  return out;
};

/**
 * The log entry with every string field — the model a client named, the error's code and message, anything a
 * provider put in `usage` — at most `maxChars` characters (cut with `truncate`'s `… (N chars)` mark), so one request
 * cannot write a log line of its own size (a 1 MB model name wrote a 1 MB line). Objects are bounded too: 32 fields,
 * 16 items, 4 levels.
 *
 * @param entry - The entry as the serving core built it (its messages already redacted).
 * @param maxChars - The longest string kept whole.
 * @returns A new, capped entry.
 */
export function capLogEntry(entry: ChatRequestLog, maxChars: number): ChatRequestLog {
  return cap(entry, maxChars, 0) as ChatRequestLog;
}
