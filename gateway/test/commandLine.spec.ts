/**
 * The gateway program's command line, run as a user runs it (`node --import tsx gateway/src/main.ts`, as `npm start`):
 * `--help` and `--version` answer and exit 0 without starting anything; an unknown argument is an error naming it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeGatewayConfig } from '../src/describeGatewayConfig';
import { loadGatewayConfig } from '../src/loadGatewayConfig';
import { GATEWAY_PROGRAM, startProgram } from '../../test/helpers/gatewayProgram';
import { rawRequest } from '../../test/helpers/rawRequest';
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
    const { version } = JSON.parse(readFileSync(join(ROOT, 'gateway', 'package.json'), 'utf8')) as { version: string }; // the gateway's
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

  describe('with a config file', () => {
    let dir: string;
    beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'gateway-cli-'))));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const write = (name: string, text: string): string => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };

    it('--check-config prints the resolved configuration without secrets and exits 0; a bad file: exit 1 naming the key and line', async () => {
      const good = write('good.yaml', 'upstream:\n  provider: deepseek\n  apiKey: ${MY_DEEPSEEK_KEY}\nserve:\n  heartbeatMs: 5000\n');
      const printed = await run(['--config', good, '--check-config'], { MY_DEEPSEEK_KEY: 'sk-never-printed', CHATFLUX_MAX_RETRIES: '4' });
      expect({ code: printed.code, stderr: printed.stderr }).toEqual({ code: 0, stderr: '' });
      expect(printed.stdout).toMatch(/^# chatflux-gateway: the resolved configuration, from .*good\.yaml, with the environment over it/);
      expect(printed.stdout).toContain('  provider: deepseek\n  apiKey: (set)\n');
      expect(printed.stdout).toContain('  retry: 4\n');
      expect(printed.stdout).toContain('  heartbeatMs: 5000\n');
      expect(printed.stdout).not.toContain('sk-never-printed');
      const bad = write('bad.yaml', 'upstream:\n  provider: deepseek\nserve:\n  heartbeatMs: soon\n');
      const refused = await run([`--config=${bad}`, '--check-config']);
      expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 1, stdout: '' });
      expect(refused.stderr).toBe('chatflux-gateway: the configuration does not start: serve.heartbeatMs (bad.yaml:4): must be an integer from 0 to 3600000, got "soon".\n');
    }, 90_000);

    it('--config FILE starts the gateway with it (here: its keys), and the banner names the file', async () => {
      const path = write('keys.yaml', 'serve:\n  apiKeys:\n    - ${GATEWAY_TEST_KEY}\n');
      const program = { ...GATEWAY_PROGRAM, args: [...GATEWAY_PROGRAM.args, '--config', path] };
      const gateway = await startProgram({ GATEWAY_TEST_KEY: 'the-file-key' }, program);
      try {
        expect(gateway.stderr()).toContain(`config file:  ${path} (CHATFLUX_* variables set over it)`);
        expect(gateway.stderr()).toContain('gateway keys: 1 configured');
        const body = { messages: [{ role: 'user', content: 'Hello' }] };
        expect((await rawRequest(`${gateway.url}/chat/json`, { body })).status).toBe(401);
        expect((await rawRequest(`${gateway.url}/chat/json`, { body, headers: { Authorization: 'Bearer the-file-key' } })).status).toBe(200);
      } finally {
        gateway.child.kill('SIGTERM');
        await gateway.exited;
      }
    }, 90_000);

    it('--help lists the config file\'s keys and the variable of each', async () => {
      const { code, stdout } = await run(['--help']);
      expect(code).toBe(0);
      expect(stdout).toContain('  --config FILE ');
      expect(stdout).toContain('  --check-config ');
      expect(stdout).toMatch(/\n {2}upstream\.retry: number, default 2; an integer from 0 to 10\n/);
      expect(stdout).toMatch(/\n {2}CHATFLUX_MAX_RETRIES +upstream\.retry\n/);
    }, 60_000);
  });
});
