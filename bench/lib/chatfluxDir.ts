import { join } from 'node:path';

/** Where `buildChatflux` writes the compiled chatflux (CommonJS JavaScript, as `tsc` emits it). */
export const CHATFLUX_DIST = join(__dirname, '..', '.tmp', 'dist');

/**
 * The directory chatflux modules are loaded from: the compiled copy (default), or src/ itself through tsx when
 * `BENCH_CHATFLUX=source`.
 */
export function chatfluxDir(): string {
  return process.env['BENCH_CHATFLUX'] === 'source' ? join(__dirname, '..', '..', 'src') : CHATFLUX_DIST;
}
