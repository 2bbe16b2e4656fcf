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
 *   npx tsx scripts/real-streams-wires.ts [corpus dir]
 *
 * Exit status: 0 when every file passes; 1 when one differs; 2 when the folder is missing.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { from, type Observable } from 'rxjs';
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

async function checkFile(bytes: Uint8Array): Promise<{ failures: string[]; frames: number }> {
  const failures: string[] = [];
  let frames = 0;
  for (const chunking of CHUNKINGS) {
    const pieces = chunking.cut(bytes);
    const outputs = await values(from(pieces).pipe(parseSse(), decodeChunk(), toOutputChunks()));
    const completions = await values(
      from(outputs).pipe(toChatCompletionChunks({ model: 'm', id: 'chatcmpl-real', created: 1, includeUsage: true })),
    );
    for (const chunk of completions) {
      frames++;
      if (OPENAI_WIRE.encode(chunk) !== `data: ${JSON.stringify(chunk)}\n\n`) failures.push(`${chunking.name}: /v1 frame differs for ${JSON.stringify(chunk).slice(0, 120)}`);
    }
    outputs.forEach((value, position) => {
      frames++;
      const json = stringifyValue(value) ?? 'null';
      // The logged text itself is JSON.stringify's (both frames below are made of it, so they cannot tell).
      if (json !== (JSON.stringify(value) ?? 'null')) failures.push(`${chunking.name}: logged JSON ${position} differs from JSON.stringify`);
      if (SSE_WIRE.encode(loggedFrame(json, 'stream', position)) !== formatSseEvent(serverSentEvent({ id: streamEventId.of('stream', position), data: json }))) {
        failures.push(`${chunking.name}: resumable SSE frame ${position} differs`);
      }
      if (NDJSON_WIRE.encode(new WireText(`${json}\n`)) !== NDJSON_WIRE.encode(value)) failures.push(`${chunking.name}: resumable NDJSON line ${position} differs`);
    });
  }
  return { failures, frames };
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
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.sse')).sort()) {
    files++;
    const result = await checkFile(new Uint8Array(readFileSync(join(dir, file))));
    frames += result.frames;
    if (result.failures.length > 0) failed++;
    process.stdout.write(`${result.failures.length === 0 ? 'ok  ' : 'FAIL'} ${file}\n`);
    for (const failure of result.failures.slice(0, 5)) process.stdout.write(`       ${failure}\n`);
  }
  process.stdout.write(`\nreal-streams-wires: ${files - failed}/${files} files byte-identical (${frames} frames over ${CHUNKINGS.length} chunkings, ${dir})\n`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`real-streams-wires: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
