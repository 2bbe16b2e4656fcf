/**
 * The documents name only files that exist: every relative link of README.md, and every `*.md` a source comment or
 * the README cites by path (docs/PROVIDERS.md, bench/RESULTS.md, …).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });

describe('the documents cite files that exist', () => {
  it('README.md: every relative link', () => {
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((match) => match[1] ?? '').filter((link) => !/^[a-z]+:/i.test(link));
    expect(links.length).toBeGreaterThan(10);
    expect(links.filter((link) => !existsSync(join(root, link)))).toEqual([]);
  });

  it('README.md and the sources: every Markdown file cited by name', () => {
    const cited = [readme, ...sources(join(root, 'src')).map((file) => readFileSync(file, 'utf8'))].flatMap((text) =>
      [...text.matchAll(/(?<![\w/.-])((?:[\w-]+\/)*[\w-]+\.md)\b/g)].map((match) => match[1] ?? ''),
    );
    expect(cited).toContain('docs/PROVIDERS.md');
    const missing = [...new Set(cited)].filter((file) => !existsSync(join(root, file)));
    expect(missing.map((file) => relative(root, join(root, file)))).toEqual([]);
  });
});
