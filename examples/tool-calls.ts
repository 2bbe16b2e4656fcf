/**
 * Tool calls end to end: describe the tools with zod, let `assembleToolCalls` assemble and validate the calls the
 * model streams, run them, and send the results back in a second request for the final answer.
 *
 * Run: `npx tsx examples/tool-calls.ts` with CHATFLUX_BASE_URL (and CHATFLUX_API_KEY) of an OpenAI-compatible API.
 */
import { filter, lastValueFrom, map, reduce, toArray } from 'rxjs';
import { z } from 'zod';
import { assembleToolCalls, createChatClient, isToolCallError, type ChatMessage, type ChatRequest } from 'chatflux';

/** Each tool: its argument schema (validation and the JSON schema the model sees) and its implementation. */
const GetWeather = z.object({ city: z.string().min(1) });
const tools = {
  get_weather: {
    description: 'The current weather in a city',
    schema: GetWeather,
    run: ({ city }: z.infer<typeof GetWeather>) => ({ city, celsius: 21, sky: 'clear' }),
  },
};

const client = createChatClient({
  provider: 'openai-compatible',
  baseUrl: process.env.CHATFLUX_BASE_URL ?? 'https://api.deepseek.com',
  apiKey: process.env.CHATFLUX_API_KEY,
  model: process.env.CHATFLUX_MODEL ?? 'deepseek-chat',
});

async function main(): Promise<void> {
  const messages: ChatMessage[] = [{ role: 'user', content: 'Use get_weather: what is the weather in Paris?' }];
  const request: ChatRequest = {
    messages,
    tool_choice: 'auto',
    tools: Object.entries(tools).map(([name, tool]) => ({
      type: 'function',
      function: { name, description: tool.description, parameters: z.toJSONSchema(tool.schema) },
    })),
  };

  // 1. Stream the first answer; each call is emitted once complete, its arguments parsed and validated by zod.
  const calls = await lastValueFrom(
    client.chunks(request).pipe(assembleToolCalls({ schemas: { get_weather: GetWeather } }), toArray()),
  );
  if (calls.length === 0) throw new Error('the model answered without calling a tool');

  // 2. Run each call. `parsedArguments` is the schema's output (typed `unknown`: the schema is per function name).
  messages.push({
    role: 'assistant',
    content: null,
    tool_calls: calls.map(({ id, type, function: fn }) => ({ id, type, function: fn })),
  });
  for (const call of calls) {
    const result = tools.get_weather.run(GetWeather.parse(call.parsedArguments));
    console.log(`→ ${call.function.name}(${call.function.arguments}) = ${JSON.stringify(result)}`);
    messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
  }

  // 3. Send the results back; the model now answers in text. Print it as it streams.
  const text = await lastValueFrom(
    client.stream({ ...request, messages }).pipe(
      map((chunk) => chunk.message.content),
      filter((piece) => piece !== ''),
      reduce((all, piece) => {
        process.stdout.write(piece);
        return all + piece;
      }, ''),
    ),
  );
  process.stdout.write('\n');
  console.log(`final answer: ${text.length} characters`);
}

main()
  .catch((error: unknown) => {
    // A model that sends arguments the schema rejects ends the stream with a ToolCallError.
    if (isToolCallError(error)) console.error(`bad arguments for ${error.functionName} (${error.toolCallId}): ${error.message}`);
    else console.error(error);
    process.exitCode = 1;
  })
  .finally(() => client.close());
