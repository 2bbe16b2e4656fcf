import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The gateway package's version, as `chatflux-gateway --version`, the start banner and `GET /healthz` report it: the
 * `version` of the first `package.json` named `chatflux-gateway` above this file (`gateway/src/` in a clone,
 * `node_modules/chatflux-gateway/dist/` installed).
 *
 * @returns The version (`'0.1.0'`), or `'unknown'` when no such package.json is found.
 */
export function packageVersion(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === 'chatflux-gateway' && typeof manifest.version === 'string') return manifest.version;
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}
