/**
 * Composing chatflux operators by hand, without the client: one request, one pipeline, several views of it.
 *
 *   requestCompletion ─► parseSse ─► decodeChunk ─┬─► accumulateDeltas ─► last   (the whole answer)
 *                                                 └─► assembleToolCalls          (each tool call, once complete)
 *
 * Run: `npx tsx examples/pipeline.ts` with CHATFLUX_BASE_URL (and CHATFLUX_API_KEY) of an OpenAI-compatible API,
 * e.g. the emulator: `npx tsx src/testing/cli.ts` prints its URL.
 */
import { firstValueFrom, last, share, toArray, zip } from 'rxjs';
import {
  accumulateDeltas,
  assembleToolCalls,
  decodeChunk,
  fromBody,
  parseSse,
  requestCompletion,
  type ChatCompletionRequest,
} from 'chatflux';

const baseUrl = process.env.CHATFLUX_BASE_URL ?? 'https://api.deepseek.com';
const apiKey = process.env.CHATFLUX_API_KEY;
const model = process.env.CHATFLUX_MODEL ?? 'deepseek-chat';

/** 1. Bytes → events → chunks → snapshots; `last()` is the complete answer, shaped like a non-streaming completion. */
async function wholeAnswer(): Promise<void> {
  const request: ChatCompletionRequest = { model, messages: [{ role: 'user', content: 'Say hello' }] };
  const answer = await firstValueFrom(
    requestCompletion(request, { baseUrl, apiKey }).pipe(parseSse(), decodeChunk(), accumulateDeltas(), last()),
  );
  console.log('answer:', answer.choices[0]?.message.content);
  console.log('usage:', JSON.stringify(answer.usage));
}

/** 2. The same chunks feed two operators: `share()` makes one request serve both branches. */
async function toolCallsAndAnswer(): Promise<void> {
  const request: ChatCompletionRequest = {
    model,
    messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
    tools: [
      {
        type: 'function',
        function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
      },
    ],
  };
  const chunks = requestCompletion(request, { baseUrl, apiKey }).pipe(parseSse(), decodeChunk(), share());
  const [calls, answer] = await firstValueFrom(
    zip(chunks.pipe(assembleToolCalls(), toArray()), chunks.pipe(accumulateDeltas(), last())),
  );
  for (const call of calls) console.log(`tool call ${call.id}: ${call.function.name}(${call.function.arguments})`);
  console.log('finish_reason:', answer.choices[0]?.finish_reason);
}

/** 3. Any body works as a source: here `fetch`'s web stream, through `fromBody` (pull-based, cancelled on unsubscribe). */
async function withFetch(): Promise<void> {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'Hi from fetch' }] }),
  });
  if (!response.ok || response.body === null) throw new Error(`upstream answered ${response.status}`);
  const answer = await firstValueFrom(fromBody(response.body).pipe(parseSse(), decodeChunk(), accumulateDeltas(), last()));
  console.log('via fetch:', answer.choices[0]?.message.content);
}

async function main(): Promise<void> {
  await wholeAnswer();
  await toolCallsAndAnswer();
  await withFetch();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
