/**
 * The brand that {@link serverSentEvent} puts on an object so that `toSse` can tell an SSE frame from a plain value.
 * A registered symbol (`Symbol.for`), so two copies of chatflux in one process recognise each other's events.
 */
export const SERVER_SENT_EVENT_BRAND: unique symbol = Symbol.for('chatflux.ServerSentEvent');
