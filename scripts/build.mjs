// Builds both packages with tsc. The library (the root): dist/cjs (CommonJS) and dist/esm (ES modules), each with
// .d.ts, from src/ — the two compilations side by side. Then the gateway (the `chatflux-gateway` package in
// gateway/): gateway/dist (CommonJS), with its page (gateway/src/public). The gateway imports the library by its name
// only, so it compiles against the library's built declarations (node_modules/chatflux is the workspace's link to
// the root): it is built second.
import { spawn } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const gateway = join(root, 'gateway');
const tsc = (project) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: root, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tsc -p ${project} exited with ${code}`))));
  });
rmSync(join(root, 'dist'), { recursive: true, force: true });
rmSync(join(gateway, 'dist'), { recursive: true, force: true });
try {
  await Promise.all([tsc('tsconfig.build.json'), tsc('tsconfig.build.esm.json')]);
  writeFileSync(join(root, 'dist/cjs/package.json'), '{"type":"commonjs"}\n');
  writeFileSync(join(root, 'dist/esm/package.json'), '{"type":"module"}\n');
  await tsc('gateway/tsconfig.build.json');
} catch (error) {
  console.error(`chatflux build: ${error.message}`);
  process.exit(1);
}
cpSync(join(gateway, 'src/public'), join(gateway, 'dist/public'), { recursive: true });
