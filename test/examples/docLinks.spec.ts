/**
 * The documents name only files that exist: every relative link of README.md and of the guides in docs/ (from the
 * guide's own folder, as GitHub resolves it), every `#anchor` of those links (a heading of the document it points at),
 * and every `*.md` a source comment, the README or a guide cites by path (docs/PROVIDERS.md, bench/RESULTS.md, …).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = join(__dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
/** The guides, by their path from the root (docs/api/, TypeDoc's output, is not one). */
const guides = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });

/** The relative links of a Markdown text: path (empty for a link inside the document) and anchor. */
const linksOf = (text: string): { path: string; anchor?: string }[] =>
  [...text.matchAll(/\]\(([^)#\s]*)(?:#([^)\s]*))?\)/g)]
    .map((match) => ({ path: match[1] ?? '', ...(match[2] === undefined ? {} : { anchor: match[2] }) }))
    .filter((link) => !/^[a-z]+:/i.test(link.path));

/** The anchors GitHub gives a Markdown file's headings (outside code blocks). */
const anchorsOf = (text: string): Set<string> => {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (heading !== null) anchors.add((heading[1] ?? '').trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-'));
  }
  return anchors;
};

/** The links of `doc` (a path from the root) whose file or heading does not exist. */
const brokenLinks = (doc: string): string[] => {
  const text = readFileSync(join(root, doc), 'utf8');
  return linksOf(text).flatMap(({ path, anchor }) => {
    const target = path === '' ? join(root, doc) : join(root, dirname(doc), path);
    if (!existsSync(target)) return [`${doc}: ${path}`];
    if (anchor === undefined || !target.endsWith('.md')) return [];
    return anchorsOf(readFileSync(target, 'utf8')).has(anchor) ? [] : [`${doc}: ${path}#${anchor}`];
  });
};

describe('the documents cite files that exist', () => {
  it('README.md: every relative link, and its anchor', () => {
    expect(linksOf(readme).length).toBeGreaterThan(10);
    expect(brokenLinks('README.md')).toEqual([]);
  });

  it('the guides in docs/: every relative link (from docs/), and its anchor', () => {
    expect(guides).toEqual(expect.arrayContaining(['docs/ARCHITECTURE.md', 'docs/operators.md', 'docs/gateway.md']));
    expect(guides.flatMap(brokenLinks)).toEqual([]);
  });

  it('README.md, the guides and the sources: every Markdown file cited by name', () => {
    const texts = [
      ...['README.md', ...guides].map((doc) => ({ from: dirname(doc), text: readFileSync(join(root, doc), 'utf8') })),
      ...sources(join(root, 'src')).map((file) => ({ from: '.', text: readFileSync(file, 'utf8') })),
    ];
    const cited = texts.flatMap(({ from, text }) =>
      [...text.matchAll(/(?<![\w/.-])((?:[\w-]+\/)*[\w-]+\.md)\b/g)].map((match) => ({ from, file: match[1] ?? '' })),
    );
    expect(cited.map(({ file }) => file)).toContain('docs/PROVIDERS.md');
    // A path from the root (as prose names them), or from the document's own folder (as its links do).
    const missing = cited.filter(({ from, file }) => !existsSync(join(root, file)) && !existsSync(join(root, from, file)));
    expect([...new Set(missing.map(({ from, file }) => relative(root, join(root, from, file))))]).toEqual([]);
  });
});
