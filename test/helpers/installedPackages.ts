import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What an install put on disk: each package once (`name@version`, nested copies included), and the bytes of every file. */
export interface InstalledPackages {
  /** The names of the packages found (a package installed twice, at two versions, is there twice). */
  packages: string[];
  /** The sum of the sizes of every file under node_modules (symbolic links not followed). */
  bytes: number;
}

/**
 * Counts the packages and the bytes of a node_modules folder, as a user's disk sees them: every folder with a
 * package.json at a package's place (`x`, `@scope/x`, and nested `x/node_modules/y`), and every file's size.
 *
 * @param nodeModules - The node_modules folder of a project.
 * @returns The packages and the bytes.
 */
export function installedPackages(nodeModules: string): InstalledPackages {
  const packages: string[] = [];
  let bytes = 0;
  const sizeOf = (path: string): void => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    if (!stat.isDirectory()) {
      bytes += stat.size;
      return;
    }
    for (const name of readdirSync(path)) sizeOf(join(path, name));
  };
  const packagesIn = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      if (name.startsWith('.')) continue;
      const path = join(folder, name);
      if (name.startsWith('@')) {
        for (const inner of readdirSync(path)) packageAt(join(path, inner));
      } else packageAt(path);
    }
  };
  const packageAt = (path: string): void => {
    try {
      const { name } = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')) as { name?: string };
      if (typeof name === 'string') packages.push(name);
    } catch {
      return;
    }
    try {
      packagesIn(join(path, 'node_modules'));
    } catch {
      // no nested node_modules
    }
  };
  packagesIn(nodeModules);
  sizeOf(nodeModules);
  return { packages: packages.sort(), bytes };
}
