import { toErrorResponse } from '../core/toErrorResponse.js';
import { errorType } from '../telemetry/errorType.js';
import type { Usage } from '../core/schemas/index.js';
import type { ChatEndpoint, ChatRequestLog } from './ChatRequestLog.js';
import { capLogEntry } from './capLogEntry.js';
import type { RouteReport } from './routeReportOf.js';
import type { WriteOutcome } from './WriteOutcome.js';

/** What {@link toChatRequestLog} builds an entry from. */
export interface ChatRequestLogConfig {
  /** Which endpoint served the request. */
  endpoint: ChatEndpoint;
  /** The request's method (`POST`, `GET`, `HEAD`). */
  method: string;
  /** When the request arrived (`performance.now()`). */
  started: number;
  /** How the response ended (the writer's outcome). */
  outcome: WriteOutcome;
  /** The model asked for, once the request was read. */
  model?: string;
  /** The last usage the upstream reported. */
  usage?: Usage;
  /** What a route's last value said of its call (see `routeReportOf`). */
  route?: RouteReport;
  /** Literal secrets to redact from the error message. */
  secrets: readonly string[];
  /** The longest string field, in characters (see `capLogEntry`). */
  maxLogFieldChars: number;
}

/**
 * The one log entry of a request, as every adapter writes it (the node serving core `createChatEndpoints` and the web
 * handlers `createChatHandlers`): status, result, durations, counts, model, usage, a route's finishing target and
 * attempts, and the error's public code with its redacted message and its bounded kind; string fields capped by
 * `capLogEntry`.
 *
 * @param config - The request's facts and the writer's outcome.
 * @returns The entry to hand to the `log` option.
 */
export function toChatRequestLog(config: ChatRequestLogConfig): ChatRequestLog {
  const { outcome, model, usage, route } = config;
  const entry: ChatRequestLog = {
    endpoint: config.endpoint,
    method: config.method,
    status: outcome.status,
    result: outcome.result,
    durationMs: Math.round(performance.now() - config.started),
    chunks: outcome.values,
    bytes: outcome.bytes,
  };
  if (model !== undefined) entry.model = model;
  if (outcome.firstValueMs !== undefined) entry.firstChunkMs = Math.round(outcome.firstValueMs);
  if (usage !== undefined) entry.usage = usage;
  if (route?.target !== undefined) entry.target = route.target;
  if (route?.attempts !== undefined) entry.attempts = route.attempts;
  if (outcome.error !== undefined) {
    const { body } = toErrorResponse(outcome.error, { secrets: config.secrets });
    entry.error = { code: body.code, message: body.message, kind: errorType(outcome.error) };
  }
  return capLogEntry(entry, config.maxLogFieldChars);
}
