/**
 * Whether a stream opened now can be resumed on every instance (`'shared'`: the log's store answers) or only in
 * this process (`'local'`: the store is unreachable or the log is in-memory). What the response header says and
 * what the degraded-streams metric counts.
 */
export type StreamLogHealth = 'shared' | 'local';
