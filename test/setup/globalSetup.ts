/**
 * Before any test file: a directory for the run (shared by the workers: the packed package, temporary projects), and
 * the programs of TOOLS — found (`CHROME_PATH`, `PATH`, the usual locations) or, on a Debian machine as root,
 * installed with apt-get. A tool that cannot be had fails only the tests that need it, with one line saying what to
 * install (requireTool).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDebianTool } from './ensureDebianTool';
import { missingToolVariable } from './missingToolVariable';
import { TOOLS } from './TOOLS';

export default function globalSetup(): void {
  process.env['CHATFLUX_TEST_RUN_DIR'] = mkdtempSync(join(tmpdir(), 'chatflux-test-run-'));
  for (const tool of TOOLS) {
    const outcome = ensureDebianTool(tool);
    if ('path' in outcome) process.env[tool.envVar] = outcome.path;
    else {
      process.env[missingToolVariable(tool)] = outcome.missing;
      process.stderr.write(`\n${outcome.missing}\n`);
    }
  }
}
