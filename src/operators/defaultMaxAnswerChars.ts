/**
 * The default cap of an answer that is held whole (`toOutput`, `accumulateDeltas`, `client.json()`): 16 Mi
 * characters (16 777 216) of text, reasoning, tool calls and log probabilities — as much as one SSE event may carry
 * (`parseSse`'s `maxEventSize`), so an answer that passes the event guard is not refused for its size as a whole
 * unless it is larger than that. Providers stop far below it (a 64 K-token answer with its reasoning is a few hundred
 * thousand characters); an upstream streaming without end is cut there, holding some 20–40 MB, instead of growing the
 * heap until the process dies. A server holding many answers at once sets a lower cap (the gateway's
 * `CHATFLUX_MAX_ANSWER_CHARS`).
 */
export const DEFAULT_MAX_ANSWER_CHARS = 16 * 1024 * 1024;
