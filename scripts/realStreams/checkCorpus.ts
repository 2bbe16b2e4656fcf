import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { CHUNKINGS } from './chunkings';
import { checkExpect, type CorpusExpect } from './checkExpect';
import { readReference } from './readReference';
import { runPipelines, type OutputView, type PipelineViews } from './runPipelines';

/** One entry of `manifest.json`. */
export interface ManifestEntry {
  file: string;
  provider?: string;
  expect: CorpusExpect;
}

/** The verdict on one file. */
export interface FileResult {
  file: string;
  provider: string;
  failures: string[];
}

/** The verdict on the corpus: `missing` when the folder is not there. */
export interface CorpusReport {
  dir: string;
  missing: boolean;
  results: FileResult[];
}

const OUTPUTS = ['accumulate', 'output', 'ndjson', 'sse'] as const;
const NAMES: Record<(typeof OUTPUTS)[number], string> = {
  accumulate: 'accumulateDeltas',
  output: 'toOutput',
  ndjson: 'NDJSON',
  sse: 'SSE',
};

const show = (value: unknown): string => {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 200 ? `${text.slice(0, 197)}…` : text;
};

/** The failures of one chunking: errors, disagreement between outputs, the manifest's expect, the reference. */
function checkViews(views: PipelineViews, entry: ManifestEntry, text: string): string[] {
  const failures: string[] = [];
  const ref = readReference(text);
  for (const name of OUTPUTS) {
    const view: OutputView = views[name];
    if (view.error !== undefined) {
      if (!ref.inBandError) failures.push(`${NAMES[name]} failed: ${view.error.name} ${view.error.code}`);
      else if (name !== 'ndjson' && name !== 'sse' && view.error.name !== 'UpstreamStreamError')
        failures.push(`${NAMES[name]}: the in-band error came out as ${view.error.name} ${view.error.code}`);
      continue;
    }
    if (ref.inBandError) failures.push(`${NAMES[name]} finished although the stream carries an in-band error`);
    failures.push(...checkExpect(view, entry.expect, NAMES[name]));
  }
  if (ref.inBandError) return failures;
  // Agreement: every output shows the same answer for every followed choice.
  const base = views.output;
  for (const name of ['accumulate', 'ndjson', 'sse'] as const) {
    for (const [index, answer] of Object.entries(base.choices)) {
      const other = views[name].choices[Number(index)];
      for (const field of Object.keys(answer) as Array<keyof typeof answer>) {
        if (!isDeepStrictEqual(answer[field], other?.[field]))
          failures.push(
            `choice ${index}: ${NAMES[name]} has ${field} ${show(other?.[field])}, toOutput ${show(answer[field])}`,
          );
      }
    }
  }
  if (!isDeepStrictEqual(views.ndjsonChunks, views.sseChunks))
    failures.push('NDJSON and SSE carry different chunk sequences');
  // Identity: the first non-empty id / model / created, alike in accumulateDeltas and toOutput.
  for (const name of ['accumulate', 'output'] as const) {
    const view = views[name];
    if (ref.id !== undefined && view.id !== ref.id)
      failures.push(`${NAMES[name]}: id ${show(view.id)}, the first non-empty is ${show(ref.id)}`);
    if (ref.model !== undefined && view.model !== ref.model)
      failures.push(`${NAMES[name]}: model ${show(view.model)}, the first non-empty is ${show(ref.model)}`);
    if (ref.created !== undefined && view.created !== ref.created)
      failures.push(`${NAMES[name]}: created ${show(view.created)}, the first non-zero is ${show(ref.created)}`);
  }
  // Nothing lost: the followed choice's text, reasoning and refusal, and that usage came through when sent.
  const answer = base.choices[0];
  if (answer !== undefined) {
    if (answer.content !== ref.content)
      failures.push(`content lost: toOutput has ${show(answer.content)}, the stream ${show(ref.content)}`);
    if (answer.reasoning !== ref.reasoning)
      failures.push(`reasoning lost: toOutput has ${show(answer.reasoning)}, the stream ${show(ref.reasoning)}`);
    if (answer.refusal !== ref.refusal)
      failures.push(`refusal lost: toOutput has ${show(answer.refusal)}, the stream ${show(ref.refusal)}`);
    if (ref.hasUsage && answer.usage === undefined)
      failures.push('usage lost: the stream carries usage, toOutput has none');
  }
  return failures;
}

/**
 * Checks every file of a real-streams corpus (`manifest.json` + `.sse` files): each goes through
 * `parseSse → decodeChunk → accumulateDeltas / toOutput / toOutputChunks → NDJSON / SSE` under every chunking of
 * {@link CHUNKINGS}; the outputs must agree with each other, with the manifest's `expect`, with a naive reading of
 * the stream (nothing lost, first non-empty identity), and across chunkings.
 */
export async function checkCorpus(dir: string): Promise<CorpusReport> {
  if (!existsSync(join(dir, 'manifest.json'))) return { dir, missing: true, results: [] };
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as ManifestEntry[];
  const results: FileResult[] = [];
  const listed = new Set(manifest.map((entry) => entry.file));
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith('.sse'))
    .sort()) {
    if (!listed.has(file)) results.push({ file, provider: '?', failures: ['not listed in manifest.json'] });
  }
  for (const entry of manifest) {
    const path = join(dir, entry.file);
    const result: FileResult = { file: entry.file, provider: entry.provider ?? '?', failures: [] };
    results.push(result);
    if (!existsSync(path)) {
      result.failures.push('listed in manifest.json but missing');
      continue;
    }
    const bytes = new Uint8Array(readFileSync(path));
    const text = Buffer.from(bytes).toString('utf8');
    const choices = entry.expect.choices?.map((choice) => choice.index) ?? [0];
    let first: PipelineViews | undefined;
    for (const chunking of CHUNKINGS) {
      let views: PipelineViews;
      try {
        views = await runPipelines(chunking.cut(bytes), choices);
      } catch (error) {
        result.failures.push(`${chunking.name}: the check itself threw: ${(error as Error).message}`);
        continue;
      }
      if (first === undefined) {
        first = views;
        result.failures.push(...checkViews(views, entry, text).map((failure) => `${chunking.name}: ${failure}`));
      } else if (!isDeepStrictEqual(views, first)) {
        result.failures.push(`${chunking.name}: the outputs differ from the whole-body run`);
      }
    }
  }
  return { dir, missing: false, results };
}
