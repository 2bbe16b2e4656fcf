/**
 * The gateway program's command line, run as a user runs it (`node --import tsx gateway/src/main.ts`, as `npm start`):
 * `--help` and `--version` answer and exit 0 without starting anything; an unknown argument is an error naming it.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeGatewayConfig } from '../src/describeGatewayConfig';
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { GATEWAY_PROGRAM } from '../../test/helpers/gatewayProgram';
import { ROOT, userEnv } from '../../test/helpers/packedPackage';

/** Runs the program with `args` to its end (killed after 30 s: a program that started a server never ends by itself). */
const run = (args: string[], env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      GATEWAY_PROGRAM.command,
      [...GATEWAY_PROGRAM.args, ...args],
      { cwd: GATEWAY_PROGRAM.cwd, env: userEnv({ PORT: '0', HOST: '127.0.0.1', ...env }), timeout: 30_000, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr }),
    );
  });

describe('chatflux-gateway command line', () => {
  it('--help prints the options and the settings it would start with (the banner\'s lines), starts nothing, exits 0', async () => {
    const env = { CHATFLUX_MAX_RETRIES: '4', CHATFLUX_KEEP_ALIVE_TIMEOUT_MS: '70000' };
    for (const flag of ['--help', '-h']) {
      const { code, stdout, stderr } = await run([flag], env);
      expect({ flag, code, stderr }).toEqual({ flag, code: 0, stderr: '' });
      expect(stdout).toMatch(/^Usage: chatflux-gateway \[--help \| --version\]\n/);
      expect(stdout).toContain('--version');
      const banner = describeGatewayConfig(loadGatewayConfig(env));
      expect(banner).toEqual(expect.arrayContaining(['max retries:  4', 'connections:  idle kept open 70000 ms']));
      for (const line of banner) expect(stdout).toContain(`  ${line}\n`);
    }
  }, 90_000);

  it('--help with an environment that would not start says why, and still exits 0', async () => {
    const { code, stdout } = await run(['--help'], { CHATFLUX_MAX_RETRIES: 'many' });
    expect(code).toBe(0);
    expect(stdout).toMatch(/this environment does not start: CHATFLUX_MAX_RETRIES must be an integer/);
  }, 60_000);

  it('--version prints the version of package.json, starts nothing, exits 0', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      expect(await run([flag])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  }, 90_000);

  it('an unknown argument is an error naming it: exit 1, one line on stderr, nothing started', async () => {
    const { code, stdout, stderr } = await run(['--port', '8080']);
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
    expect(stderr).toMatch(/^chatflux gateway failed to start: unknown argument "--port": .*--help.*\n$/);
    const both = await run(['--help', '--version']);
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/one option at a time/);
    expect(both.stderr).not.toMatch(/listening on/);
  }, 90_000);
});
