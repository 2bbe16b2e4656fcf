import { ConfigError, isConfigError } from 'chatflux';
import { describeGatewayConfig } from './describeGatewayConfig.js';
import { formatResolvedConfig } from './formatResolvedConfig.js';
import { GATEWAY_KEYS } from './GATEWAY_KEYS.js';
import { GATEWAY_SETTINGS } from './GATEWAY_SETTINGS.js';
import { loadGatewayConfig } from './loadGatewayConfig.js';
import { packageVersion } from './packageVersion.js';

/** What the command line asks for, answered by {@link answerCommandLine}. */
export interface CommandLineAnswer {
  /** Print this on stdout and exit with `exitCode` (nothing starts). */
  stdout?: string;
  /** Print this on stderr and exit with `exitCode` (nothing starts). */
  stderr?: string;
  /** Exit with it (nothing starts); absent: start the gateway. */
  exitCode?: number;
  /** The config file to start with (`--config FILE`). */
  configFile?: string;
}

/** The options that answer and exit, one at a time. */
const ANSWERS: readonly string[] = ['--help', '-h', '--version', '-v', '--check-config'];

/** The help: what the program does, its options, its config file's keys, the variables over them, and the settings it would start with. */
function help(env: Record<string, string | undefined>, configFile: string | undefined): string {
  let settings: string[];
  try {
    settings = describeGatewayConfig(loadGatewayConfig(env, configFile === undefined ? {} : { configFile }));
  } catch (error) {
    if (!isConfigError(error)) throw error;
    settings = [`(this ${configFile === undefined ? 'environment' : 'configuration'} does not start: ${error.message})`];
  }
  const keys = [...GATEWAY_KEYS.values()].map((row) => `  ${row.name}: ${row.type}, default ${row.default}${row.range === '—' ? '' : `; ${row.range}`}\n      ${row.description}`);
  const width = Math.max(...GATEWAY_SETTINGS.flatMap((setting) => (setting.env === undefined ? [] : [setting.env.length])));
  const variables = GATEWAY_SETTINGS.flatMap((setting) => (setting.env === undefined ? [] : [`  ${setting.env.padEnd(width)}  ${setting.key}`]));
  return [
    'Usage: chatflux-gateway [--help | --version]',
    '       chatflux-gateway [--config FILE] [--check-config]',
    '',
    'Starts the chatflux gateway: POST /chat/json, /chat/stream, /chat/sse, /v1/chat/completions, /v1/messages, /chat/ui, GET /chat/sse?q=,',
    '/healthz, /metrics and the demo page at /, in front of the provider its configuration names (the built-in',
    'emulator by default: upstream.provider emulator). Its settings are a YAML config file (--config FILE, or',
    'CHATFLUX_CONFIG; see gateway.example.yaml) and environment variables over it (PORT, HOST, CHATFLUX_*,',
    'OTEL_EXPORTER_OTLP_*). With this environment it would start with:',
    '',
    ...settings.map((line) => `  ${line}`),
    '',
    'Options:',
    '  -h, --help        print this and exit',
    '  -v, --version     print the version and exit',
    '  --config FILE     read the settings from the YAML file FILE (the environment variables below are set over it)',
    '  --check-config    print the resolved configuration (without secrets) and exit: 0 when it starts, 1 with the error',
    '',
    'Config file keys (secrets only as references to environment variables: apiKey: ${DEEPSEEK_API_KEY}):',
    ...keys,
    '',
    'Environment variables, each setting one key over the file (also CHATFLUX_CONFIG: the file; CHATFLUX_ROUTES or',
    'CHATFLUX_ROUTES_FILE: the routes as JSON; the providers\' own key variables, DEEPSEEK_API_KEY, …):',
    ...variables,
    '',
  ].join('\n');
}

/**
 * Answers the gateway program's command line before anything starts: `--help` (`-h`) prints what it does, its
 * options, its config file's keys (`GatewayFileSchema`), the variables over them (`GATEWAY_SETTINGS`) and the settings
 * it would start with (`describeGatewayConfig`, the banner's lines); `--version` (`-v`) prints the package's version;
 * `--check-config` prints the resolved configuration without secrets (exit 0), or the error (exit 1). `--config FILE`
 * names the config file (to start with, or for `--help` / `--check-config`).
 *
 * @param args - The arguments (`process.argv.slice(2)`).
 * @param env - The environment (`process.env`), for the settings `--help` and `--check-config` print.
 * @returns What to print and the exit code, or (no `exitCode`) the config file to start the gateway with.
 * @throws ConfigError naming an argument it does not know (nothing started then).
 */
export function answerCommandLine(args: readonly string[], env: Record<string, string | undefined>): CommandLineAnswer {
  let configFile: string | undefined;
  const answers: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '--config' || arg.startsWith('--config=')) {
      const file = arg === '--config' ? args[(i += 1)] : arg.slice('--config='.length);
      if (file === undefined || file === '' || file.startsWith('-')) throw new ConfigError('--config takes a file: chatflux-gateway --config gateway.yaml');
      if (configFile !== undefined) throw new ConfigError('--config is given twice: the gateway reads one config file.');
      configFile = file;
    } else if (ANSWERS.includes(arg)) {
      answers.push(arg);
    } else {
      throw new ConfigError(
        `unknown argument ${JSON.stringify(arg)}: chatflux-gateway takes --help, --version, --config FILE and --check-config; its settings are a config file and environment variables (PORT, HOST, CHATFLUX_*: see chatflux-gateway --help).`,
      );
    }
  }
  if (answers.length > 1) throw new ConfigError(`chatflux-gateway takes one option at a time, got ${answers.join(' ')}: run it with --help, --version or --check-config alone.`);
  const [answer] = answers;
  const options = configFile === undefined ? {} : { configFile };
  if (answer === undefined) return options;
  if (answer === '--help' || answer === '-h') return { stdout: help(env, configFile), exitCode: 0 };
  if (answer === '--version' || answer === '-v') return { stdout: `${packageVersion()}\n`, exitCode: 0 };
  try {
    return { stdout: formatResolvedConfig(loadGatewayConfig(env, options)), exitCode: 0 };
  } catch (error) {
    if (!isConfigError(error)) throw error;
    return { stderr: `chatflux-gateway: the configuration does not start: ${error.message}\n`, exitCode: 1 };
  }
}
