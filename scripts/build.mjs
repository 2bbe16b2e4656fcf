// Builds dist/cjs (CommonJS) and dist/esm (ES modules), each with .d.ts, from src/ with tsc — the two compilations
// side by side. The gateway (the `chatflux-gateway` program, not an entry point) is built for CommonJS only, with its
// page (src/gateway/public).
import { spawn } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = (project) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: root, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tsc -p ${project} exited with ${code}`))));
  });
rmSync(join(root, 'dist'), { recursive: true, force: true });
try {
  await Promise.all([tsc('tsconfig.build.json'), tsc('tsconfig.build.esm.json')]);
} catch (error) {
  console.error(`chatflux build: ${error.message}`);
  process.exit(1);
}
cpSync(join(root, 'src/gateway/public'), join(root, 'dist/cjs/gateway/public'), { recursive: true });
writeFileSync(join(root, 'dist/cjs/package.json'), '{"type":"commonjs"}\n');
writeFileSync(join(root, 'dist/esm/package.json'), '{"type":"module"}\n');
