/**
 * Bounds on a chat request, checked before the schema runs: they make validation cost a
 * function of these limits, not of the input (a 1 MB body of 330 000 empty messages would otherwise make zod build
 * 660 000 issues and block the event loop for seconds). An omitted field takes its default ({@link DEFAULT_REQUEST_LIMITS}).
 */
export interface RequestLimitsConfig {
  /** The most messages in `messages`. */
  maxMessages?: number;
  /** The deepest nesting of objects and arrays (the body itself is depth 1). */
  maxDepth?: number;
  /** The most JSON values in the body: objects, arrays, strings, numbers, booleans and nulls, all counted. */
  maxValues?: number;
  /** The most characters (UTF-16 code units) of all strings and object keys together. */
  maxChars?: number;
  /** The most validation issues kept and reported (the 400's message shows the first five, then "and N more"). */
  maxIssues?: number;
}

/**
 * The default request limits.
 *
 * | limit | default | why |
 * |---|---|---|
 * | `maxMessages` | 2 048 | a long agent session with tool calls stays in the hundreds; each message costs the schema a few issues at most |
 * | `maxDepth` | 64 | messages, content parts and tool parameter schemas nest a dozen levels; deeper is an attack on recursive code |
 * | `maxValues` | 16 384 | a long conversation with tool calls and tools with their schemas uses a few thousand; a schema reports up to three issues per value, so this bounds the worst invalid body to tens of milliseconds of validation (65 536 values of empty tool calls cost 0.3–0.6 s) |
 * | `maxChars` | 8 388 608 (8 Mi) | a million-token context is about 4 Mi characters of text; the default 1 MB body limit of the endpoints is lower still |
 * | `maxIssues` | 20 | enough to fix a request; more only costs time and log space |
 */
export const DEFAULT_REQUEST_LIMITS: Readonly<Required<RequestLimitsConfig>> = Object.freeze({
  maxMessages: 2048,
  maxDepth: 64,
  maxValues: 16_384,
  maxChars: 8 * 1024 * 1024,
  maxIssues: 20,
});
