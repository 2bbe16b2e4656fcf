/**
 * Why a request body was refused, as Express's JSON parser names it in its errors' `type` (what `express.json()` and Nest's
 * parser throw), plus `'request.timeout'` (the body's deadline) and `'encoding.failed'` (bytes that do not inflate as
 * their `Content-Encoding` says). `toRequestError` words each as the endpoint's 413, 415, 408 or 400.
 */
export type BodyErrorType =
  | 'entity.too.large'
  | 'entity.parse.failed'
  | 'charset.unsupported'
  | 'encoding.unsupported'
  | 'encoding.failed'
  | 'request.aborted'
  | 'request.timeout';

/** The HTTP status Express's JSON parser gives each refusal (`status` on its errors), which the errors here carry too. */
const STATUS: Readonly<Record<BodyErrorType, number>> = {
  'entity.too.large': 413,
  'entity.parse.failed': 400,
  'charset.unsupported': 415,
  'encoding.unsupported': 415,
  'encoding.failed': 400,
  'request.aborted': 400,
  'request.timeout': 408,
};

/**
 * A body reader's refusal, shaped as the errors of Express's JSON parser (`type`, `status`, and the context fields such as `limit`,
 * `timeoutMs`, `charset`), so that `toRequestError` words the serving core's own reader and a platform's parser
 * (an app's `express.json()`, Nest's) alike. Never sent as it is: the endpoint sends `toRequestError`'s wording.
 *
 * @param type - Why.
 * @param message - For logs.
 * @param fields - Context (`limit`, `length`, `timeoutMs`, `charset`, `encoding`) and the `cause`.
 * @returns The error, to throw.
 */
export function bodyError(type: BodyErrorType, message: string, fields: Record<string, unknown> & { cause?: unknown } = {}): Error & { type: BodyErrorType; status: number } {
  const { cause, ...context } = fields;
  return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { ...context, type, status: STATUS[type] });
}
