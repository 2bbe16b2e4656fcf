/**
 * The corpus check behind `npm run real-streams` (run by .ci/run against ../shared/real-streams), exercised here on a
 * small corpus made of the project's own fixtures, so that the check itself is known to catch what it must.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkCorpus, type ManifestEntry } from '../../scripts/realStreams/checkCorpus';

const FIXTURES = join(__dirname, '..', 'fixtures', 'streams');

describe('checkCorpus (npm run real-streams)', () => {
  let dir: string;
  const corpus = (entries: ManifestEntry[], files = entries.map((e) => e.file)): void => {
    for (const file of files) copyFileSync(join(FIXTURES, file), join(dir, file));
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(entries));
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'real-streams-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('passes streams whose outputs agree with each other and with the manifest, under every chunking', async () => {
    corpus([
      {
        file: 'groq-x-groq-usage.sse',
        expect: {
          content: 'Three.',
          reasoning_content: "Count the r's: three.",
          finish_reason: 'stop',
          usage: { total_tokens: 26 },
        },
      },
      {
        file: 'openai-refusal.sse',
        expect: { refusal: "I can't help with that.", content: '', finish_reason: 'stop' },
      },
      { file: 'moonshot-n2.sse', expect: {} },
      { file: 'eof-after-finish-reason.sse', expect: { content: '完整的话。', finish_reason: 'stop' } },
    ]);
    const report = await checkCorpus(dir);
    expect(report.missing).toBe(false);
    expect(report.results.map((r) => [r.file, r.failures])).toEqual([
      ['groq-x-groq-usage.sse', []],
      ['openai-refusal.sse', []],
      ['moonshot-n2.sse', []],
      ['eof-after-finish-reason.sse', []],
    ]);
  });

  it('reports a wrong expectation, a stream that fails, and files missing from either side', async () => {
    corpus(
      [
        { file: 'mistral-thinking-parts.sse', expect: { content: 'Lyon.', finish_reason: 'stop' } },
        { file: 'eof-without-done.sse', expect: {} },
        { file: 'not-there.sse', expect: {} },
      ],
      ['mistral-thinking-parts.sse', 'eof-without-done.sse', 'deepseek-plain.sse'],
    );
    const report = await checkCorpus(dir);
    const failures = Object.fromEntries(report.results.map((r) => [r.file, r.failures.join('\n')]));
    expect(failures['mistral-thinking-parts.sse']).toMatch(/whole: toOutput: content is "Paris\.", expected "Lyon\."/);
    expect(failures['eof-without-done.sse']).toMatch(/toOutput failed: StreamProtocolError stream_incomplete/);
    expect(failures['not-there.sse']).toBe('listed in manifest.json but missing');
    expect(failures['deepseek-plain.sse']).toBe('not listed in manifest.json');
  });

  it('says when the corpus is missing', async () => {
    expect(await checkCorpus(join(dir, 'nope'))).toEqual({ dir: join(dir, 'nope'), missing: true, results: [] });
  });
});
