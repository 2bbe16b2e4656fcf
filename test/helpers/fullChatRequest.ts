/** A request with every field of the OpenAI-compatible chat request, and a few nobody knows. */
export const FULL_REQUEST = {
  model: 'deepseek-chat',
  messages: [
    { role: 'system', content: 'Be brief.', name: 'rules' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in this picture, and the weather?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K', detail: 'low' } },
      ],
    },
    {
      role: 'assistant',
      content: null,
      reasoning_content: 'The user wants the weather: call the tool.',
      tool_calls: [
        { id: 'call_00_abc', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_00_abc', content: '{"temp":21}' },
    { role: 'assistant', content: 'It is', prefix: true, partial: true },
  ],
  temperature: 0.3,
  top_p: 0.9,
  n: 2,
  seed: 42,
  stop: ['\n\n', 'END'],
  max_tokens: 300,
  max_completion_tokens: 400,
  presence_penalty: 0.5,
  frequency_penalty: -0.5,
  logprobs: true,
  top_logprobs: 3,
  user: 'user-1234',
  response_format: { type: 'json_schema', json_schema: { name: 'w', schema: { type: 'object' } } },
  tools: [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
        strict: true,
      },
    },
  ],
  tool_choice: { type: 'function', function: { name: 'get_weather' } },
  parallel_tool_calls: false,
  thinking: { type: 'enabled' },
  web_search_options: { search_context_size: 'low' },
  x_vendor_flag: [1, { nested: true }],
};
