/**
 * The chat requests the serving core has just validated with `parseChatRequest`, on their way to the client: the
 * client (`toCompletionRequest`) takes them as they are instead of validating them a second time.
 *
 * Only the serving core adds to it, and only the object `parseChatRequest` has just returned, which no other code
 * holds: a request a user passes to the client is always validated. Internal: not exported from any entry point.
 */
export const VALIDATED_CHAT_REQUESTS: WeakSet<object> = new WeakSet();
