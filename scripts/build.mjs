// Builds dist/cjs (CommonJS) and dist/esm (ES modules), each with .d.ts, from src/ with tsc.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';

const tsc = (...args) => execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', ...args], { stdio: 'inherit' });
rmSync('dist', { recursive: true, force: true });
tsc('-p', 'tsconfig.build.json');
tsc('-p', 'tsconfig.build.json', '--module', 'es2022', '--moduleResolution', 'bundler', '--outDir', 'dist/esm');
writeFileSync('dist/cjs/package.json', '{"type":"commonjs"}\n');
writeFileSync('dist/esm/package.json', '{"type":"module"}\n');
