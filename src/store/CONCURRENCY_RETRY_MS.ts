/** The wait a concurrency refusal asks for, in ms (every store's): when a place frees is not known, so one second. */
export const CONCURRENCY_RETRY_MS = 1000;
