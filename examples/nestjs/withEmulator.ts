/**
 * The NestJS example (main.ts, as docs/adapters.md shows it) against the built-in upstream emulator, or against any
 * OpenAI-compatible provider when CHATFLUX_BASE_URL and CHATFLUX_API_KEY are set. Run: `npm run example:nestjs`.
 */
import { startEmulator } from '../../src/testing/startEmulator.js';

async function main(): Promise<void> {
  const emulator = process.env['CHATFLUX_BASE_URL'] === undefined ? await startEmulator({ dialect: 'deepseek' }) : undefined;
  if (emulator !== undefined) {
    process.env['CHATFLUX_BASE_URL'] = emulator.url;
    process.env['CHATFLUX_API_KEY'] ??= 'emulator';
  }
  // The module reads the environment when the app starts: main.ts is loaded after it is set.
  await import('./main.js');
  const base = `http://127.0.0.1:${process.env['PORT'] ?? 3001}`;
  const body = `'{"messages":[{"role":"user","content":"Hello!"}]}'`;
  console.log(`chatflux NestJS example on ${base} (upstream: ${emulator === undefined ? process.env['CHATFLUX_BASE_URL'] : 'emulator'})`);
  for (const path of ['/v1/chat/json', '/v1/chat/stream', '/v1/chat/sse', '/assistant/ask', '/assistant/text']) {
    console.log(`  curl -N -X POST ${base}${path} -H 'Content-Type: application/json' -d ${body}`);
  }
}

void main();
