// `prepack` of both packages: refuses to pack a package whose build is missing or partial: every file the exports
// map and the bins of the library, and the gateway's program and page, must exist (`prepare` builds them just before;
// `npm pack --ignore-scripts` runs neither).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const gatewayPkg = JSON.parse(readFileSync(join(root, 'gateway/package.json'), 'utf8'));
const targets = (entry) => (typeof entry === 'string' ? [entry] : Object.values(entry).flatMap(targets));
const needed = [
  ...targets(pkg.exports),
  ...Object.values(pkg.typesVersions['*']).flat(),
  ...Object.values(pkg.bin),
  'dist/cjs/testing/cli.js',
  ...Object.values(gatewayPkg.bin).map((bin) => `gateway/${bin}`),
  'gateway/dist/main.js',
  'gateway/dist/public/index.html',
];
const missing = [...new Set(needed)].filter((file) => !existsSync(join(root, file)));
if (missing.length > 0) {
  console.error(`chatflux: the build is missing ${missing.join(', ')}: run \`npm run build\` (needs the devDependencies) before packing.`);
  process.exit(1);
}
