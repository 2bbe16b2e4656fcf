/**
 * Command line entry of the upstream emulator: `npx tsx src/testing/cli.ts --port 8787 --dialect moonshot`.
 *
 * Options: `--port N` (default 8787; 0 for any), `--host H` (default 127.0.0.1), `--dialect moonshot|deepseek|openai`
 * (default deepseek), `--seed N` (default 0), `--api-key K` (require `Authorization: Bearer K`), `--scenario TEXT`
 * (default faults, grammar of `parseScenario`), `--pace MS`. Prints the base URL and runs until SIGINT/SIGTERM.
 * @packageDocumentation
 */
import { startEmulator, type EmulatorConfig } from './startEmulator.js';
import type { EmulatorDialect } from './EmulatorDialect.js';

const USAGE =
  'usage: chatflux-emulator [--port 8787] [--host 127.0.0.1] [--dialect deepseek|moonshot|openai] [--seed 0] [--api-key KEY] [--scenario "pace=5;queue=500"] [--pace MS]';

/**
 * Parses the command line and starts the emulator.
 *
 * @param argv - The arguments after the script name.
 * @returns The exit code to use when it fails to start (it keeps running otherwise).
 */
export async function main(argv: readonly string[]): Promise<number> {
  const options = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      return 0;
    }
    const [key, inline] = arg.split(/=(.*)/s, 2);
    if (!key?.startsWith('--')) {
      console.error(`unexpected argument "${arg}"\n${USAGE}`);
      return 2;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) {
      console.error(`${key} needs a value\n${USAGE}`);
      return 2;
    }
    options.set(key.slice(2), value);
  }
  const dialect = (options.get('dialect') ?? 'deepseek') as EmulatorDialect;
  if (!['deepseek', 'moonshot', 'openai'].includes(dialect)) {
    console.error(`--dialect must be deepseek, moonshot or openai, got "${dialect}"`);
    return 2;
  }
  const config: EmulatorConfig = {
    dialect,
    port: Number(options.get('port') ?? 8787),
    host: options.get('host') ?? '127.0.0.1',
    seed: Number(options.get('seed') ?? 0),
    ...(options.has('api-key') ? { apiKey: options.get('api-key') as string } : {}),
    ...(options.has('scenario') ? { scenario: options.get('scenario') as string } : {}),
    ...(options.has('pace') ? { paceMs: Number(options.get('pace')) } : {}),
  };
  const emulator = await startEmulator(config);
  console.log(`chatflux emulator (${dialect}) listening: ${emulator.url}`);
  console.log(
    `try: curl -N ${emulator.url}/chat/completions -H 'content-type: application/json' -d '{"model":"${dialect === 'moonshot' ? 'moonshot-v1-8k' : 'deepseek-chat'}","stream":true,"messages":[{"role":"user","content":"你好"}]}'`,
  );
  const stop = (): void => {
    void emulator.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return 0;
}

if (typeof require !== 'undefined' && typeof module !== 'undefined' && require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      if (code !== 0) process.exit(code);
    },
    (error: unknown) => {
      console.error((error as Error).message);
      process.exit(1);
    },
  );
}
