import { availableParallelism } from 'node:os';
import { ConfigError } from 'chatflux';

/**
 * Reads `CHATFLUX_WORKERS`: how many gateway processes serve the port (node:cluster). Unset, empty or `1`: one
 * process, no cluster. `auto`: one per core (`os.availableParallelism()`). A number: that many (1–256).
 *
 * @param env - The environment (`process.env`).
 * @returns The number of workers, 1 for a single process.
 * @throws ConfigError when the value is neither `auto` nor a whole number from 1 to 256.
 */
export function resolveWorkerCount(env: NodeJS.ProcessEnv): number {
  const raw = env['CHATFLUX_WORKERS']?.trim() ?? '';
  if (raw === '') return 1;
  if (raw.toLowerCase() === 'auto') return availableParallelism();
  const count = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isInteger(count) || count < 1 || count > 256) {
    throw new ConfigError(
      `CHATFLUX_WORKERS must be "auto" (one worker per core) or a whole number from 1 to 256, got ${JSON.stringify(raw)}.`,
    );
  }
  return count;
}
