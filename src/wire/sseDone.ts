/** The frame that ends every `/chat/sse` response, after the last chunk or after an error frame. */
export const SSE_DONE = 'data: [DONE]\n\n';
