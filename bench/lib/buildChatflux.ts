/**
 * Compiles src/ to CommonJS JavaScript in bench/.tmp/dist with the TypeScript compiler (file by file, no type check:
 * the same JavaScript `tsc -p tsconfig.build.json` emits for dist/cjs), so the bench measures what users run; and the
 * gateway package's gateway/src/ into bench/.tmp/dist/gateway, its imports of the library (`chatflux`,
 * `chatflux/node`, …) pointed at that same build.
 *
 * Running the sources through tsx instead would measure esbuild's `keepNames` output: every function created in a hot
 * path gets a `__name(fn, 'name')` wrapper (an `Object.defineProperty` per call), which users never pay.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { CHATFLUX_DIST } from './chatfluxDir.js';

const ROOT = join(__dirname, '..', '..');

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) yield path;
  }
}

/** The library's entry points, as the gateway's build names them from bench/.tmp/dist/gateway/. */
const toLibraryBuild = (javascript: string): string =>
  javascript.replace(/require\("chatflux(?:\/([a-z]+))?"\)/g, (_all, entry?: string) => `require("${entry === undefined ? '../index.js' : `../${entry}/index.js`}")`);

/** Transpiles every file of src/ and gateway/src/ into {@link CHATFLUX_DIST}; returns the number of files. */
export function buildChatflux(): number {
  return transpile(join(ROOT, 'src'), CHATFLUX_DIST, (text) => text) + transpile(join(ROOT, 'gateway', 'src'), join(CHATFLUX_DIST, 'gateway'), toLibraryBuild);
}

function transpile(src: string, outDir: string, rewrite: (javascript: string) => string): number {
  let files = 0;
  for (const file of sources(src)) {
    const out = join(outDir, relative(src, file)).replace(/\.ts$/, '.js');
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.CommonJS,
        esModuleInterop: true,
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
        isolatedModules: true,
      },
    });
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, rewrite(outputText));
    files++;
  }
  const publicDir = join(src, 'public');
  if (existsSync(publicDir)) cpSync(publicDir, join(outDir, 'public'), { recursive: true });
  writeFileSync(join(outDir, 'package.json'), '{"type":"commonjs"}\n');
  return files;
}
