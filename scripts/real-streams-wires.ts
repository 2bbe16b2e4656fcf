/**
 * The serving fast paths, byte for byte, on every recorded provider stream of `../shared/real-streams` (read in
 * place: never copy those files in), under every chunking of `CHUNKINGS`: each stream goes through the composed
 * operators (`parseSse → decodeChunk → toOutputChunks`), then
 *
 * - `/v1/chat/completions`: `toChatCompletionChunks` → `OPENAI_WIRE.encode` (its text-chunk template) must write
 *   `data: ${JSON.stringify(chunk)}\n\n` for every chunk;
 * - a resumable `/chat/sse` and `/chat/stream`: the frame made of the logged JSON (`loggedFrame`, the NDJSON line)
 *   must be what `formatSseEvent` / `NDJSON_WIRE` write for the value.
 *
 * Each value is written as it comes out of the operators, as the gateway writes it (in the same call as the chunk
 * scanner's read): so the provider's own string literals spliced by the templates (`providerLiteral`) are checked
 * too, and the frames that spliced one are counted (`spliced`: a corpus run that never reaches the path proves
 * nothing about it).
 *
 *   npx tsx scripts/real-streams-wires.ts [corpus dir]
 *
 * Exit status: 0 when every file passes; 1 when one differs; 2 when the folder is missing.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { from, tap, type Observable } from 'rxjs';
import { providerLiteral } from '../src/core/providerLiteral';
import { serverSentEvent } from '../src/core/serverSentEvent';
import { decodeChunk } from '../src/operators/decodeChunk';
import { parseSse } from '../src/operators/parseSse';
import { toChatCompletionChunks } from '../src/operators/toChatCompletionChunks';
import { toOutputChunks } from '../src/operators/toOutputChunks';
import { loggedFrame } from '../src/serve/loggedFrame';
import { streamEventId } from '../src/serve/streamEventId';
import { formatSseEvent } from '../src/wire/formatSseEvent';
import { NDJSON_WIRE } from '../src/wire/NDJSON_WIRE';
import { OPENAI_WIRE } from '../src/wire/OPENAI_WIRE';
import { SSE_WIRE } from '../src/wire/SSE_WIRE';
import { stringifyValue } from '../src/wire/stringifyValue';
import { WireText } from '../src/wire/WireText';
import { CHUNKINGS } from './realStreams/chunkings';

/** Every value of `source` up to its end or its error (a stream may end in an in-band error). */
const values = <T>(source: Observable<T>): Promise<T[]> =>
  new Promise((settled) => {
    const seen: T[] = [];
    source.subscribe({ next: (value) => void seen.push(value), error: () => settled(seen), complete: () => settled(seen) });
  });

/** Whether the wire splices a remembered provider literal for this value's text (checked before it is written). */
const splices = (value: unknown): boolean => {
  const message = (value as { message?: { content?: unknown } }).message;
  const delta = (value as { choices?: { delta?: { content?: unknown; reasoning_content?: unknown } }[] }).choices?.[0]?.delta;
  const texts = [message?.content, delta?.content, delta?.reasoning_content];
  return texts.some((text) => typeof text === 'string' && text !== '' && providerLiteral.holds(text));
};

async function checkFile(bytes: Uint8Array): Promise<{ failures: string[]; frames: number; spliced: number }> {
  const failures: string[] = [];
  let frames = 0;
  let spliced = 0;
  for (const chunking of CHUNKINGS) {
    // /v1: each chat.completion.chunk written as it is made, right after the scanner read its text.
    await values(
      from(chunking.cut(bytes)).pipe(
        parseSse(),
        decodeChunk(),
        toOutputChunks(),
        toChatCompletionChunks({ model: 'm', id: 'chatcmpl-real', created: 1, includeUsage: true }),
        tap((chunk) => {
          frames++;
          if (splices(chunk)) spliced++;
          if (OPENAI_WIRE.encode(chunk) !== `data: ${JSON.stringify(chunk)}\n\n`) failures.push(`${chunking.name}: /v1 frame differs for ${JSON.stringify(chunk).slice(0, 120)}`);
        }),
      ),
    );
    // /chat/sse, /chat/stream: each contract chunk logged as it is made.
    let position = 0;
    await values(
      from(chunking.cut(bytes)).pipe(
        parseSse(),
        decodeChunk(),
        toOutputChunks(),
        tap((value) => {
          frames++;
          if (splices(value)) spliced++;
          const json = stringifyValue(value) ?? 'null';
          // The logged text itself is JSON.stringify's (both frames below are made of it, so they cannot tell).
          if (json !== (JSON.stringify(value) ?? 'null')) failures.push(`${chunking.name}: logged JSON ${position} differs from JSON.stringify`);
          if (SSE_WIRE.encode(loggedFrame(json, 'stream', position)) !== formatSseEvent(serverSentEvent({ id: streamEventId.of('stream', position), data: json }))) {
            failures.push(`${chunking.name}: resumable SSE frame ${position} differs`);
          }
          if (NDJSON_WIRE.encode(new WireText(`${json}\n`)) !== NDJSON_WIRE.encode(value)) failures.push(`${chunking.name}: resumable NDJSON line ${position} differs`);
          position++;
        }),
      ),
    );
  }
  return { failures, frames, spliced };
}

async function main(): Promise<number> {
  const dir = resolve(process.argv[2] ?? process.env.REAL_STREAMS_DIR ?? join(__dirname, '..', '..', 'shared', 'real-streams'));
  if (!existsSync(dir)) {
    process.stderr.write(`real-streams-wires: no corpus at ${dir}\n`);
    return 2;
  }
  let failed = 0;
  let files = 0;
  let frames = 0;
  let spliced = 0;
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.sse')).sort()) {
    files++;
    const result = await checkFile(new Uint8Array(readFileSync(join(dir, file))));
    frames += result.frames;
    spliced += result.spliced;
    if (result.failures.length > 0) failed++;
    process.stdout.write(`${result.failures.length === 0 ? 'ok  ' : 'FAIL'} ${file}\n`);
    for (const failure of result.failures.slice(0, 5)) process.stdout.write(`       ${failure}\n`);
  }
  process.stdout.write(`\nreal-streams-wires: ${files - failed}/${files} files byte-identical (${frames} frames, ${spliced} of them with a provider literal spliced, over ${CHUNKINGS.length} chunkings, ${dir})\n`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`real-streams-wires: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
