/**
 * The public surface is taught and has one home per name (issue 29, item 6):
 * - every runtime export of every entry point is named in code (a code span or block) of README.md or a guide in
 *   docs/ (docs/api is TypeDoc's output, not a guide), and docs/reference.md lists exactly each entry's runtime exports;
 * - no entry point exports a name another exports, but the two sets the design names twice: the operators (on
 *   `chatflux` and `chatflux/operators`, as rxjs's) and the writers (on `chatflux/node` and `chatflux/express`).
 * Types are read with the TypeScript checker, runtime exports from the loaded modules.
 */
import 'reflect-metadata';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as root from '../../src/index';
import * as express from '../../src/express/index';
import * as nestjs from '../../src/nestjs/index';
import * as node from '../../src/node/index';
import * as operators from '../../src/operators/index';
import * as redis from '../../src/redis/index';
import * as testing from '../../src/testing/index';
import * as web from '../../src/web/index';
import { exportedNames, PUBLIC_ENTRIES, runtimeNames } from '../helpers/publicEntries';

const ROOT = join(__dirname, '..', '..');
const DOCS = join(ROOT, 'docs');
const guides = readdirSync(DOCS).filter((name) => name.endsWith('.md'));
const texts = [readFileSync(join(ROOT, 'README.md'), 'utf8'), ...guides.map((name) => readFileSync(join(DOCS, name), 'utf8'))];

/** The identifiers written as code in Markdown: in fenced blocks and in inline code spans. */
function codeIdentifiers(markdown: string): Set<string> {
  const blocks = [...markdown.matchAll(/^(`{3,})[^\n]*\n([\s\S]*?)^\1\s*$/gm)].map((match) => match[2] ?? '');
  const prose = markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, '');
  const spans = [...prose.matchAll(/(`+)([^`]+?)\1/g)].map((match) => match[2] ?? '');
  return new Set([...blocks, ...spans].flatMap((code) => code.match(/[A-Za-z_$][\w$]*/g) ?? []));
}

/** The names in the first column of the tables of each `## \`<specifier>\`` section of docs/reference.md. */
function referenceSections(markdown: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  for (const section of markdown.split(/^## /m).slice(1)) {
    const specifier = /^`([^`]+)`/.exec(section)?.[1];
    if (specifier === undefined) continue;
    const rows = section.split('\n').filter((line) => /^\| `/.test(line));
    sections.set(specifier, rows.flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '')).sort());
  }
  return sections;
}

/** Each entry point's runtime exports, loaded as jest loads the sources. */
const MODULES: Record<string, object> = {
  chatflux: root,
  'chatflux/operators': operators,
  'chatflux/node': node,
  'chatflux/express': express,
  'chatflux/nestjs': nestjs,
  'chatflux/web': web,
  'chatflux/redis': redis,
  'chatflux/testing': testing,
};
const runtime = new Map<string, string[]>(PUBLIC_ENTRIES.map(([specifier]) => [specifier, runtimeNames(MODULES[specifier] ?? {})]));
const runtimeOf = (specifier: string): string[] => runtime.get(specifier) ?? [];

describe('the public surface', () => {
  it('loads every entry point, each with runtime exports', () => {
    expect([...runtime.keys()]).toEqual(PUBLIC_ENTRIES.map(([specifier]) => specifier));
    for (const names of runtime.values()) expect(names.length).toBeGreaterThan(0);
  });

  it('is taught: every runtime export of every entry point is named in code in README.md or a guide of docs/', () => {
    expect(guides).toContain('reference.md');
    const taught = new Set(texts.flatMap((text) => [...codeIdentifiers(text)]));
    const untaught = PUBLIC_ENTRIES.flatMap(([specifier]) => runtimeOf(specifier).filter((name) => !taught.has(name)).map((name) => `${specifier}: ${name}`));
    expect(untaught).toEqual([]);
  });

  it('docs/reference.md lists exactly the runtime exports of each entry point, each under the entry that is its home', () => {
    const sections = referenceSections(readFileSync(join(DOCS, 'reference.md'), 'utf8'));
    const operators = new Set(runtimeOf('chatflux/operators'));
    // The root re-exports every operator (listed once, under chatflux/operators); every other name is listed where it lives.
    const own = (specifier: string): string[] => (specifier === 'chatflux' ? runtimeOf(specifier).filter((name) => !operators.has(name)) : runtimeOf(specifier));
    expect(Object.fromEntries([...sections].sort())).toEqual(Object.fromEntries(PUBLIC_ENTRIES.map(([specifier]) => [specifier, own(specifier)]).sort()));
  });

  describe('one home per name', () => {
    let names: Map<string, string[]>;
    beforeAll(() => {
      names = exportedNames();
    }, 120_000);

    it('no entry point exports a name of another, but the operators (chatflux, chatflux/operators) and the writers (chatflux/node, chatflux/express)', () => {
      const of = (specifier: string): string[] => names.get(specifier) ?? [];
      expect(of('chatflux').length).toBeGreaterThan(50);
      const shared: Record<string, string[]> = {};
      for (const [index, [a]] of PUBLIC_ENTRIES.entries()) {
        for (const [b] of PUBLIC_ENTRIES.slice(index + 1)) {
          const both = of(a).filter((name) => of(b).includes(name));
          if (both.length > 0) shared[`${a} & ${b}`] = both;
        }
      }
      expect(shared).toEqual({
        // DESIGN.md: the operators are on the root and on chatflux/operators, as rxjs's are on rxjs and rxjs/operators.
        'chatflux & chatflux/operators': of('chatflux/operators'),
        // DESIGN.md names sendJson, sendNdjson and sendSse on chatflux/express; node:http servers import them from chatflux/node.
        'chatflux/node & chatflux/express': ['SendJsonConfig', 'SendNdjsonConfig', 'SendSseConfig', 'sendJson', 'sendNdjson', 'sendSse'],
      });
    });
  });
});
