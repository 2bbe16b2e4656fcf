import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * A package's version, as `chatflux-gateway --version`, the start banner and `GET /healthz` report it: the `version`
 * of the first `package.json` named `name` above where it is — for the gateway, this file (`gateway/src/` in a clone,
 * `node_modules/chatflux-gateway/dist/` installed); for the library, the `chatflux` the gateway runs with (where
 * `require.resolve('chatflux')` finds it).
 *
 * @param name - The package: the gateway's own (the default) or the library's.
 * @returns The version (`'0.1.0'`), or `'unknown'` when no such package.json is found.
 */
export function packageVersion(name: 'chatflux-gateway' | 'chatflux' = 'chatflux-gateway'): string {
  let from = __dirname;
  if (name === 'chatflux') {
    try {
      from = dirname(require.resolve('chatflux'));
    } catch {
      return 'unknown';
    }
  }
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === name && typeof manifest.version === 'string') return manifest.version;
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}
