/**
 * The UI message stream wire against `ai` 6 (the version `@ai-sdk/react` 3 uses; `ai` 5 is this project's own
 * devDependency and checks the same golden files in uiMessageWire.golden.spec.ts): `ai@6` installed by npm into a
 * temporary project, once per run (the useChat browser test installs the same), and every part of every golden UI
 * stream parsed with its own `uiMessageChunkSchema` through `parseJsonEventStream`, as its `DefaultChatTransport` reads
 * a response; its `readUIMessageStream` rebuilds the same text and reasoning as `ai` 5's.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as ai5 from 'ai';
import { installedToolProject } from '../helpers/packedPackage';

const GOLDEN = join(__dirname, '..', 'fixtures', 'golden', 'ui');
const NAMES = readdirSync(GOLDEN).filter((name) => name.endsWith('.sse'));

type Ai = Pick<typeof ai5, 'parseJsonEventStream' | 'uiMessageChunkSchema' | 'readUIMessageStream'>;
type Parsed = { success: boolean; value?: unknown; error?: unknown };

/** Every part of `sse` as `ai` parses it with its own schema. */
const partsOf = async (ai: Ai, sse: string): Promise<Parsed[]> => {
  const parsed: Parsed[] = [];
  const stream = ai.parseJsonEventStream({ stream: new Response(sse).body!, schema: ai.uiMessageChunkSchema });
  for await (const result of stream as unknown as AsyncIterable<Parsed>) parsed.push(result);
  return parsed;
};

/** The text and reasoning of the last message `ai`'s `readUIMessageStream` builds from the parts. */
const rebuilt = async (ai: Ai, parts: readonly unknown[]): Promise<{ text: string; reasoning: string }> => {
  const stream = new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
  let last: { parts: Array<{ type: string; text?: string }> } | undefined;
  try {
    for await (const message of ai.readUIMessageStream({ stream: stream as never }) as AsyncIterable<typeof last>) last = message;
  } catch {
    // an error part: the message so far is what a front end shows
  }
  const of = (type: string): string => (last?.parts ?? []).filter((part) => part.type === type).map((part) => part.text ?? '').join('');
  return { text: of('text'), reasoning: of('reasoning') };
};

describe('the UI message stream wire with ai 6 (installed from npm)', () => {
  let ai6: Ai;
  beforeAll(async () => {
    const project = await installedToolProject('ai-sdk-next', ['ai@6', '@ai-sdk/react@3']);
    const required = createRequire(join(project, 'package.json'));
    expect((required('ai/package.json') as { version: string }).version).toMatch(/^6\./);
    ai6 = required('ai') as Ai;
  }, 300_000);

  it('has golden files to check', () => {
    expect(NAMES.length).toBeGreaterThan(10);
  });

  it.each(NAMES)("%s: every part passes ai 6's uiMessageChunkSchema, and it rebuilds what ai 5 does", async (name) => {
    const sse = readFileSync(join(GOLDEN, name), 'utf8');
    const parsed = await partsOf(ai6, sse);
    expect(parsed.length).toBeGreaterThan(0);
    for (const result of parsed) expect(result).toEqual(expect.objectContaining({ success: true }));
    const parts = parsed.map((result) => result.value);
    const byAi5 = (await partsOf(ai5, sse)).map((result) => result.value);
    expect(await rebuilt(ai6, parts)).toEqual(await rebuilt(ai5, byAi5));
  });
});
