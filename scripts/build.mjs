// Builds both packages with tsc. The library (the root): dist/cjs (CommonJS) and dist/esm (ES modules), each with
// .d.ts, from src/ — the two compilations side by side. Then the gateway (the `chatflux-gateway` package in
// gateway/): gateway/dist (CommonJS), with its page (gateway/src/public). The gateway imports the library by its name
// only, so it compiles against the library's built declarations (node_modules/chatflux is the workspace's link to
// the root): it is built second.
//
// `--if-changed` (what `prepare` passes): no build when dist/ and gateway/dist/ are, byte for byte, what a build of the
// same inputs made before (a record in node_modules/.cache: the hash of every input — the sources, the tsconfig files,
// the manifests, the lockfile, this script, TypeScript's version — and of every output file). `npm ci` builds, and
// the `npm pack` after it (the package tests) finds the same build instead of making it again. Without the flag
// (`npm run build`) it always builds.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const gateway = join(root, 'gateway');

/** One hash of the paths and contents of `paths` (files, or folders read recursively); a missing path counts too. */
const hashOf = (paths) => {
  const hash = createHash('sha256');
  const add = (path) => {
    if (!existsSync(path)) return void hash.update(`missing ${relative(root, path)}\0`);
    if (statSync(path).isDirectory()) return void readdirSync(path).sort().forEach((name) => add(join(path, name)));
    hash.update(`${relative(root, path)}\0`).update(readFileSync(path)).update('\0');
  };
  paths.forEach(add);
  return hash.digest('hex');
};
const INPUTS = [
  'src',
  'gateway/src',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.build.esm.json',
  'gateway/tsconfig.build.json',
  'package.json',
  'gateway/package.json',
  'package-lock.json',
  'scripts/build.mjs',
  'node_modules/typescript/package.json',
].map((path) => join(root, path));
const OUTPUTS = [join(root, 'dist'), join(gateway, 'dist')];
/** The record of the last build of this clone (keyed by its path: one node_modules may serve several clones). */
const record = join(root, 'node_modules', '.cache', 'chatflux-build', `${createHash('sha256').update(root).digest('hex').slice(0, 16)}.json`);
const readRecord = () => {
  try {
    return JSON.parse(readFileSync(record, 'utf8'));
  } catch {
    return undefined;
  }
};
const inputs = hashOf(INPUTS); // before building: a source changed meanwhile makes the record stale, never wrong
if (process.argv.includes('--if-changed')) {
  const last = readRecord();
  if (last !== undefined && last.inputs === inputs && OUTPUTS.every(existsSync) && last.outputs === hashOf(OUTPUTS)) {
    console.error('chatflux build: dist/ and gateway/dist/ are the build of the current sources (scripts/build.mjs --if-changed): not building again.');
    process.exit(0);
  }
}
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
try {
  mkdirSync(dirname(record), { recursive: true });
  writeFileSync(record, `${JSON.stringify({ inputs, outputs: hashOf(OUTPUTS) })}\n`);
} catch {
  // no record (a read-only node_modules): the next `--if-changed` builds again
}
