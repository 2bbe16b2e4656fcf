/**
 * Compiles src/ to CommonJS JavaScript in bench/.tmp/dist with the TypeScript compiler (file by file, no type check:
 * the same JavaScript `tsc -p tsconfig.build.json` emits for dist/cjs), so the bench measures what users run.
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

/** Transpiles every file of src/ into {@link CHATFLUX_DIST}; returns the number of files. */
export function buildChatflux(): number {
  const src = join(ROOT, 'src');
  let files = 0;
  for (const file of sources(src)) {
    const out = join(CHATFLUX_DIST, relative(src, file)).replace(/\.ts$/, '.js');
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
    writeFileSync(out, outputText);
    files++;
  }
  const publicDir = join(src, 'gateway', 'public');
  if (existsSync(publicDir)) cpSync(publicDir, join(CHATFLUX_DIST, 'gateway', 'public'), { recursive: true });
  writeFileSync(join(CHATFLUX_DIST, 'package.json'), '{"type":"commonjs"}\n');
  return files;
}
