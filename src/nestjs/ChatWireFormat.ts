/**
 * The three wires of the downstream contract: `json` (`/chat/json`, one object), `ndjson` (`/chat/stream`, one
 * object per line), `sse` (`/chat/sse`, `text/event-stream` ending with `data: [DONE]`).
 */
export type ChatWireFormat = 'json' | 'ndjson' | 'sse';
