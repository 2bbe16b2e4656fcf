/**
 * Tool calls end to end with `runTools`: describe each tool with a zod schema and an `execute`; the loop asks the
 * model, validates the calls it makes (invalid arguments are told to the model, which may correct them), runs them,
 * sends the results back — with the assistant turn's `reasoning_content`, as DeepSeek's thinking mode requires — and
 * asks again until the model answers.
 *
 * Run: `npx --yes tsx examples/tool-calls.ts` with CHATFLUX_BASE_URL (and CHATFLUX_API_KEY) of an OpenAI-compatible API.
 */
import { lastValueFrom, tap } from 'rxjs';
import { z } from 'zod';
import { createChatClient, defineTool, isToolExecutionError, runTools, toToolLoopOutput } from 'chatflux';

const getWeather = defineTool({
  description: 'The current weather in a city',
  schema: z.object({ city: z.string().min(1) }),
  // `signal` aborts when the loop is unsubscribed: pass it on to fetch, a database query, …
  execute: async ({ city }, { signal }) => {
    signal.throwIfAborted();
    return { city, celsius: 21, sky: 'clear' };
  },
});

const client = createChatClient({
  provider: 'openai-compatible',
  baseUrl: process.env.CHATFLUX_BASE_URL ?? 'https://api.deepseek.com',
  apiKey: process.env.CHATFLUX_API_KEY,
  model: process.env.CHATFLUX_MODEL ?? 'deepseek-chat',
});

async function main(): Promise<void> {
  const request = { messages: [{ role: 'user' as const, content: 'Use get_weather: what is the weather in Paris?' }] };
  const answer = await lastValueFrom(
    runTools(client, request, { tools: { get_weather: getWeather }, maxSteps: 5 }).pipe(
      tap((event) => {
        if (event.type === 'text') process.stdout.write(event.text); // the answer, as it streams
        if (event.type === 'tool-result') console.log(`→ ${event.call.name}(${event.call.arguments}) = ${event.content}`);
      }),
      toToolLoopOutput(),
    ),
  );
  process.stdout.write('\n');
  console.log(`final answer: ${answer.message.content.length} characters, ${answer.usage?.total_tokens ?? '?'} tokens in all`);
}

main()
  .catch((error: unknown) => {
    // A tool that throws ends the loop with a ToolExecutionError naming it (or pass `toolErrors: 'report'`).
    if (isToolExecutionError(error)) console.error(`the tool ${error.toolName} (${error.toolCallId}) failed: ${error.message}`);
    else console.error(error);
    process.exitCode = 1;
  })
  .finally(() => client.close());
