// `prepare` (npm ci / npm install in a clone, npm pack, npm publish, and an install from a git URL): builds dist/,
// unless dist/ is already the build of the current sources (`--if-changed`: see scripts/build.mjs).
// Without TypeScript (`npm ci --omit=dev`) there is nothing to build with: it says so and leaves dist/ as it is
// (`npm pack` then refuses in `prepack`, scripts/verify-build.mjs, when the build is missing).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(join(root, 'node_modules/typescript/bin/tsc'))) {
  console.error('chatflux: TypeScript is not installed (devDependencies omitted): not building dist/.');
} else {
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), '--if-changed'], { stdio: 'inherit' });
}
