import { ConfigError, isConfigError } from 'chatflux';
import { describeGatewayConfig } from './describeGatewayConfig.js';
import { loadGatewayConfig } from './loadGatewayConfig.js';
import { packageVersion } from './packageVersion.js';

/** The options the program knows. */
const OPTIONS: readonly string[] = ['--help', '-h', '--version', '-v'];

/** The help: what the program does, its options, and the settings it would start with, as its banner prints them. */
function help(env: Record<string, string | undefined>): string {
  let settings: string[];
  try {
    settings = describeGatewayConfig(loadGatewayConfig(env));
  } catch (error) {
    if (!isConfigError(error)) throw error;
    settings = [`(this environment does not start: ${error.message})`];
  }
  return [
    'Usage: chatflux-gateway [--help | --version]',
    '',
    'Starts the chatflux gateway: POST /chat/json, /chat/stream, /chat/sse, /v1/chat/completions, /v1/messages, GET /chat/sse?q=,',
    '/healthz, /metrics and the demo page at /, in front of the provider its environment names (the built-in',
    'emulator by default). Its settings are environment variables (PORT, HOST, CHATFLUX_*, OTEL_EXPORTER_OTLP_*: see',
    'the README, "Configuration"). With this environment it would start with:',
    '',
    ...settings.map((line) => `  ${line}`),
    '',
    'Options:',
    '  -h, --help     print this and exit',
    '  -v, --version  print the version and exit',
    '',
  ].join('\n');
}

/**
 * Answers the gateway program's command line before anything starts: `--help` (`-h`) prints what it does, its options
 * and the settings it would start with (`describeGatewayConfig`, the banner's lines); `--version` (`-v`) prints the
 * package's version. Without arguments the gateway starts (its settings are environment variables).
 *
 * @param args - The arguments (`process.argv.slice(2)`).
 * @param env - The environment (`process.env`), for the settings `--help` prints.
 * @returns The text to print on stdout before exiting 0, or `undefined` to start the gateway.
 * @throws ConfigError naming an argument it does not know (nothing started then).
 */
export function answerCommandLine(args: readonly string[], env: Record<string, string | undefined>): string | undefined {
  const [first] = args;
  if (first === undefined) return undefined;
  const unknown = args.find((arg) => !OPTIONS.includes(arg));
  if (unknown !== undefined) {
    throw new ConfigError(
      `unknown argument ${JSON.stringify(unknown)}: chatflux-gateway takes only --help or --version; its settings are environment variables (PORT, HOST, CHATFLUX_*: see chatflux-gateway --help).`,
    );
  }
  if (args.length > 1) throw new ConfigError(`chatflux-gateway takes one option at a time, got ${args.join(' ')}: run it with --help or --version alone.`);
  return first === '--help' || first === '-h' ? help(env) : `${packageVersion()}\n`;
}
