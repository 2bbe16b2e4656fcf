import { rmSync } from 'node:fs';

/** After the run: removes the run's directory (the packed package and the temporary projects). */
export default function globalTeardown(): void {
  const dir = process.env['CHATFLUX_TEST_RUN_DIR'];
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
}
