/**
 * The contestants: each turns the same in-memory network chunks into the final text and tool-call arguments.
 *
 * Synchronous APIs (the floor, eventsource-parser, chatflux over a synchronous Observable) are fed in a loop; the SDKs,
 * whose public API is an HTTP client, get the chunks through a custom `fetch` returning a `Response` whose body is a
 * pull-based ReadableStream of the same Uint8Arrays — the network is never measured.
 */
import { join } from 'node:path';
import { createParser } from 'eventsource-parser';
import { chatfluxDir } from './lib/chatfluxDir.js';

export interface Outcome {
  text: string;
  toolName?: string;
  toolArgs?: string;
}

export type Contestant = (chunks: Uint8Array[]) => Promise<Outcome>;

/** Names in table order; `floor` first (the ratios divide by it). */
export const CONTESTANT_NAMES = [
  'floor',
  'eventsource-parser',
  'openai Stream',
  'openai ChatCompletionStream',
  'ai-sdk doStream',
  'ai-sdk streamText',
  'chatflux accumulateDeltas',
  'chatflux assembleToolCalls',
] as const;
export type ContestantName = (typeof CONTESTANT_NAMES)[number];

/** Contestants that only apply to tool-call workloads. */
export const TOOL_ONLY: ReadonlySet<string> = new Set(['chatflux assembleToolCalls']);

interface WireChunk {
  choices?: Array<{
    delta?: { content?: string | null; tool_calls?: Array<{ function?: { name?: string; arguments?: string } }> };
  }>;
}

/** Adds one parsed chunk's content and tool-call fragments to `out` (shared by the floor and eventsource-parser). */
function take(json: WireChunk, out: { text: string; toolName?: string; toolArgs?: string }): void {
  const delta = json.choices?.[0]?.delta;
  if (!delta) return;
  if (delta.content) out.text += delta.content;
  const calls = delta.tool_calls;
  if (calls) {
    for (const call of calls) {
      const fn = call.function;
      if (!fn) continue;
      if (fn.name) out.toolName = fn.name;
      if (fn.arguments) out.toolArgs = (out.toolArgs ?? '') + fn.arguments;
    }
  }
}

/** The floor: TextDecoder stream, split on blank lines, strip `data: `, JSON.parse, concatenate. */
const floor: Contestant = async (chunks) => {
  const decoder = new TextDecoder();
  const out: Outcome = { text: '' };
  let buffer = '';
  let done = false;
  for (let c = 0; c < chunks.length && !done; c++) {
    buffer += decoder.decode(chunks[c], { stream: true });
    let start = 0;
    let end: number;
    while ((end = buffer.indexOf('\n\n', start)) !== -1) {
      const line = buffer.slice(start, end);
      start = end + 2;
      if (!line.startsWith('data: ')) continue;
      const data = line.slice(6);
      if (data === '[DONE]') {
        done = true;
        break;
      }
      take(JSON.parse(data) as WireChunk, out);
    }
    buffer = buffer.slice(start);
  }
  if (!done) throw new Error('floor: no [DONE]');
  return out;
};

const withEventsourceParser: Contestant = async (chunks) => {
  const out: Outcome = { text: '' };
  let done = false;
  const parser = createParser({
    onEvent(event) {
      if (done) return;
      if (event.data === '[DONE]') {
        done = true;
        return;
      }
      take(JSON.parse(event.data) as WireChunk, out);
    },
  });
  const decoder = new TextDecoder();
  for (let c = 0; c < chunks.length && !done; c++) parser.feed(decoder.decode(chunks[c], { stream: true }));
  if (!done) throw new Error('eventsource-parser: no [DONE]');
  return out;
};

/** A `fetch` that answers every request with the chunks as a streamed `text/event-stream` body. */
function fetchOf(chunks: Uint8Array[]): typeof fetch {
  return (async () => {
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (i < chunks.length) controller.enqueue(chunks[i++]!);
        else controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  }) as typeof fetch;
}

const REQUEST = { model: 'kimi-k2', messages: [{ role: 'user' as const, content: 'hi' }] };

async function openaiClient(chunks: Uint8Array[]) {
  const { default: OpenAI } = await import('openai');
  return new OpenAI({ apiKey: 'sk-bench', baseURL: 'http://bench.invalid/v1', fetch: fetchOf(chunks), maxRetries: 0 });
}

const openaiStream: Contestant = async (chunks) => {
  const client = await openaiClient(chunks);
  const stream = await client.chat.completions.create({ ...REQUEST, stream: true });
  const out: Outcome = { text: '' };
  for await (const chunk of stream) take(chunk as WireChunk, out);
  return out;
};

const openaiChatCompletionStream: Contestant = async (chunks) => {
  const client = await openaiClient(chunks);
  const runner = client.chat.completions.stream({ ...REQUEST, stream: true });
  const final = await runner.finalChatCompletion();
  const message = final.choices[0]?.message;
  const call = message?.tool_calls?.[0];
  const out: Outcome = { text: message?.content ?? '' };
  if (call && call.type === 'function') {
    out.toolName = call.function.name;
    out.toolArgs = call.function.arguments;
  }
  return out;
};

async function aiSdkModel(chunks: Uint8Array[]) {
  const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
  const provider = createOpenAICompatible({
    name: 'bench',
    baseURL: 'http://bench.invalid/v1',
    apiKey: 'sk-bench',
    fetch: fetchOf(chunks),
  });
  return provider.chatModel('kimi-k2');
}

const aiSdkDoStream: Contestant = async (chunks) => {
  const model = await aiSdkModel(chunks);
  const { stream } = await model.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
  const out: Outcome = { text: '' };
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.type === 'text-delta') out.text += value.delta;
    else if (value.type === 'tool-call') {
      out.toolName = value.toolName;
      out.toolArgs = value.input;
    } else if (value.type === 'error') throw value.error;
  }
  return out;
};

const aiSdkStreamText: Contestant = async (chunks) => {
  const { streamText, tool, jsonSchema } = await import('ai');
  const model = await aiSdkModel(chunks);
  const result = streamText({
    model,
    prompt: 'hi',
    maxRetries: 0,
    tools: { search_documents: tool({ inputSchema: jsonSchema<unknown>({ type: 'object' }) }) },
  });
  const out: Outcome = { text: '' };
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') out.text += part.text;
    else if (part.type === 'tool-call') {
      out.toolName = part.toolName;
      // streamText hands out the parsed input only: compare it re-serialised (the harness does the same to the expected).
      out.toolArgs = JSON.stringify(part.input);
    } else if (part.type === 'error') throw part.error;
  }
  return out;
};

/** A chatflux module by its path under src/ (without extension), from the compiled copy or the sources. */
function load<T>(path: string): Promise<T> {
  return import(join(chatfluxDir(), `${path}.js`)) as Promise<T>;
}

/** chatflux's operators, loaded lazily so that a missing operator makes its contestant "not available", not a crash. */
async function chatflux() {
  const [{ parseSse }, { decodeChunk }, { accumulateDeltas }, rxjs] = await Promise.all([
    load<typeof import('../src/operators/parseSse.js')>('operators/parseSse'),
    load<typeof import('../src/operators/decodeChunk.js')>('operators/decodeChunk'),
    load<typeof import('../src/operators/accumulateDeltas.js')>('operators/accumulateDeltas'),
    import('rxjs'),
  ]);
  return { parseSse, decodeChunk, accumulateDeltas, rxjs };
}

const chatfluxAccumulate: Contestant = async (chunks) => {
  const { parseSse, decodeChunk, accumulateDeltas, rxjs } = await chatflux();
  const snapshot = await rxjs.lastValueFrom(rxjs.from(chunks).pipe(parseSse(), decodeChunk(), accumulateDeltas()));
  const message = snapshot.choices[0]?.message;
  const call = message?.tool_calls?.[0];
  const out: Outcome = { text: message?.content ?? '' };
  if (call) {
    out.toolName = call.function.name;
    out.toolArgs = call.function.arguments;
  }
  return out;
};

const chatfluxAssemble: Contestant = async (chunks) => {
  const [{ parseSse, decodeChunk, rxjs }, { assembleToolCalls }] = await Promise.all([
    chatflux(),
    load<typeof import('../src/operators/assembleToolCalls.js')>('operators/assembleToolCalls'),
  ]);
  const calls = await rxjs.lastValueFrom(
    rxjs.from(chunks).pipe(parseSse(), decodeChunk(), assembleToolCalls(), rxjs.toArray()),
  );
  if (calls.length !== 1) throw new Error(`chatflux assembleToolCalls: expected 1 call, got ${calls.length}`);
  const call = calls[0]!;
  return { text: '', toolName: call.function.name, toolArgs: call.function.arguments };
};

export const CONTESTANTS: Record<ContestantName, Contestant> = {
  floor,
  'eventsource-parser': withEventsourceParser,
  'openai Stream': openaiStream,
  'openai ChatCompletionStream': openaiChatCompletionStream,
  'ai-sdk doStream': aiSdkDoStream,
  'ai-sdk streamText': aiSdkStreamText,
  'chatflux accumulateDeltas': chatfluxAccumulate,
  'chatflux assembleToolCalls': chatfluxAssemble,
};

/** Contestants whose tool arguments come back re-serialised from the parsed object. */
export const PARSED_TOOL_ARGS: ReadonlySet<string> = new Set(['ai-sdk streamText']);
