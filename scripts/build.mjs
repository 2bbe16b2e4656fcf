// Builds dist/cjs (CommonJS) and dist/esm (ES modules), each with .d.ts, from src/ with tsc. The gateway (the
// `chatflux-gateway` program, not an entry point) is built for CommonJS only, with its page (src/gateway/public).
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = (...args) => execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), ...args], { cwd: root, stdio: 'inherit' });
rmSync(join(root, 'dist'), { recursive: true, force: true });
tsc('-p', 'tsconfig.build.json');
tsc('-p', 'tsconfig.build.esm.json');
cpSync(join(root, 'src/gateway/public'), join(root, 'dist/cjs/gateway/public'), { recursive: true });
writeFileSync(join(root, 'dist/cjs/package.json'), '{"type":"commonjs"}\n');
writeFileSync(join(root, 'dist/esm/package.json'), '{"type":"module"}\n');
