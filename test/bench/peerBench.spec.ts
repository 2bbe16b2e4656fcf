/**
 * A smoke test of the Performance III bench harness (bench/gatewayPeer.ts, bench/peerReport.ts): a tiny configuration
 * runs end to end on loopback and renders the section's tables. No timing is asserted: only that every figure was
 * measured and where it lands.
 */
import { peerSizes, runPeerBench, type PeerRun } from '../../bench/gatewayPeer';
import { PERF3_END, PERF3_START, renderPeerSection, sectionOf, spliceSection } from '../../bench/peerReport';

/** The lines of the markdown table that follows `heading`. */
function tableAfter(markdown: string, heading: string): string[] {
  const lines = markdown.split('\n');
  const at = lines.findIndex((line) => line.startsWith(heading));
  expect(at).toBeGreaterThan(-1);
  const start = lines.findIndex((line, i) => i > at && line.startsWith('|'));
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
  return lines.slice(start, end);
}

const cells = (line: string): string[] =>
  line
    .slice(2, -2)
    .split(' | ')
    .map((cell) => cell.trim());

describe('the Performance III bench harness', () => {
  let run: PeerRun;

  beforeAll(async () => {
    run = await runPeerBench({
      quick: true,
      log: () => undefined,
      contestants: ['raw'],
      sizes: {
        ...peerSizes(true),
        loadSeconds: 0.5,
        warmupSeconds: 0.2,
        connections: 4,
        ttfbProbes: 2,
        ttfbWarmup: 1,
        heldStreams: 3,
        settleMs: 200,
        scaleSteps: [],
        holSmallStreams: 0,
      },
    });
  }, 60_000);

  it('measures every figure of each contestant of a tiny run (direct and the raw pipe)', () => {
    expect(run.rows.map((row) => [row.key, row.status])).toEqual([
      ['direct', 'ok'],
      ['raw', 'ok'],
    ]);
    for (const row of run.rows) {
      // One load run per upstream mode: streamed (one write per event, judged), then written at once.
      expect(row.loads.map((load) => load.mode)).toEqual(['streamed', 'atOnce']);
      for (const load of row.loads) {
        expect(load.answersPerSec).toBeGreaterThan(0);
        expect(load.cpuMsPerAnswer).toBeGreaterThan(0);
        expect(load.errors).toBe(0);
      }
      expect(row.ttfbMs).toBeGreaterThan(0);
      // The same bytes in both modes: 2,000 DeepSeek-shaped deltas.
      expect(row.bytesPerAnswer?.streamed).toBe(row.bytesPerAnswer?.atOnce);
      expect(row.bytesPerAnswer?.streamed).toBeGreaterThan(550 * 1024);
    }
    expect(run.rows[1]!.heldStreams).toBe(3);
    expect(Number.isFinite(run.rows[1]!.rssPerStreamKb)).toBe(true);
    expect(run.scale.status).toBe('not run');
    expect(run.hol).toEqual([]);
  });

  it("renders the issue's table, a targets row per target with a column per run, and the details", () => {
    const markdown = renderPeerSection([run, run]);
    expect(markdown.startsWith(PERF3_START)).toBe(true);
    expect(markdown.endsWith(PERF3_END)).toBe(true);

    const table = tableAfter(markdown, '### The table of the issue: upstream streamed (one write per event; judged)');
    expect(cells(table[0]!)).toEqual(['', 'raw pipe proxy']);
    expect(table.slice(2).map((line) => cells(line)[0])).toEqual([
      'gateway CPU per answer, × raw pipe',
      'time to first byte added over direct, median',
      'answers/s at concurrency 4, × direct',
      'RSS per open stream (3 held)',
    ]);
    // The raw pipe against itself: 1.00 in both runs (a single value, not a range).
    expect(cells(table[2]!)[1]).toBe('1.00');
    // The unfavourable mode is shown beside it, labelled.
    const atOnce = tableAfter(markdown, '### The same with the upstream written at once (reference)');
    expect(atOnce.slice(2).map((line) => cells(line)[0])).toEqual([
      'gateway CPU per answer, × raw pipe',
      'answers/s at concurrency 4, × direct',
    ]);
    expect(cells(atOnce[2]!)[1]).toBe('1.00');

    const targets = tableAfter(markdown, '### Targets');
    expect(cells(targets[0]!)).toEqual(['target', 'run 1', 'run 2', 'met in every run']);
    expect(targets.slice(2).map((line) => cells(line)[0])).toEqual(
      expect.arrayContaining([
        'gateway CPU per 2,000-delta answer, /chat/sse ≤ 2.5× the raw pipe',
        'answers/s at concurrency 32 ≥ 0.8× direct, /v1/chat/completions',
        'answers/s at concurrency 32 ≥ 0.9× direct, /chat/sse (upstream written at once (reference))',
        'head-of-line: largest gap ≤ 50 ms',
      ]),
    );
    // chatflux was not a contestant of this run: its targets say so instead of passing.
    expect(targets[2]).toContain('not measured');

    const details = tableAfter(markdown, '### Details of the last run');
    expect(details.slice(2).map((line) => cells(line).slice(0, 2))).toEqual([
      ['direct (no proxy)', 'streamed'],
      ['direct (no proxy)', 'at once'],
      ['raw pipe proxy', 'streamed'],
      ['raw pipe proxy', 'at once'],
    ]);
  });

  it('says loudly that a contestant was skipped, and why', () => {
    const skipped: PeerRun = {
      ...run,
      rows: [
        ...run.rows,
        { key: 'portkey', name: 'Portkey 1.15.2', status: 'not available: npm install failed', loads: [] },
      ],
    };
    const markdown = renderPeerSection([skipped]);
    expect(markdown).toContain('> **Portkey 1.15.2: SKIPPED** — not available: npm install failed');
    expect(cells(tableAfter(markdown, '### The table of the issue')[0]!)).toEqual([
      '',
      'raw pipe proxy',
      'Portkey 1.15.2',
    ]);
  });

  it("reads the head-of-line gaps in a process of its own, with the proxy's own event-loop delay beside them", async () => {
    const hol = await runPeerBench({
      quick: true,
      log: () => undefined,
      contestants: [],
      holThrough: ['raw'],
      sizes: {
        ...peerSizes(true),
        rounds: 0,
        ttfbProbes: 1,
        ttfbWarmup: 0,
        heldStreams: 0,
        scaleSteps: [],
        holSmallStreams: 3,
        holBaselineMs: 300,
        holToolBytes: 4096,
        holTextDeltas: 200,
      },
    });
    expect(hol.hol.map((h) => [h.key, h.status])).toEqual([['raw', 'ok']]);
    expect(hol.hol[0]!.windows.map((w) => w.label)).toEqual([
      'none (baseline: the small streams alone)',
      'one tool call of 0.00 MB arguments',
      'one text of 200 deltas',
    ]);
    for (const w of hol.hol[0]!.windows) {
      expect(w.largestGapMs).toBeGreaterThan(0);
      expect(w.reads).toBeGreaterThan(0); // the small streams were read in the reader process during the window
      expect(w.loopDelayMaxMs).toBeGreaterThan(0);
    }
    const table = tableAfter(renderPeerSection([hol]), '### Head-of-line');
    expect(cells(table[0]!)).toContain('raw pipe proxy: its own event loop held at most, ms');
    expect(cells(table[0]!)).toContain('raw pipe proxy: largest gap over the baseline, ms');
  }, 60_000);

  it('replaces its own section of RESULTS.md and keeps the rest', () => {
    const section = renderPeerSection([run]);
    const before = '# chatflux benchmark results\n\n## Parsing\n\ntext\n';
    const once = spliceSection(before, section);
    expect(once.startsWith(before.trimEnd())).toBe(true);
    expect(sectionOf(once)).toBe(section);
    const again = spliceSection(`${once}\n## After\n`, renderPeerSection([run, run]));
    expect(again.startsWith(before.trimEnd())).toBe(true);
    expect(again.endsWith('\n## After\n')).toBe(true);
    expect(again.split(PERF3_START)).toHaveLength(2);
    expect(sectionOf(again)).toContain('run 2');
  });
});
