/**
 * The gateway as a user installs it: `npm pack` of gateway/ (the `chatflux-gateway` package), installed by npm into
 * an empty project — with the library's tarball beside it, as the registry would resolve its `chatflux` dependency,
 * and nothing else: its dependencies (Express, pino, cors, the OpenTelemetry SDK, yaml) come with it.
 */
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { installedGatewayProject, packedGatewayTarball, userEnv, type PackedTarball } from '../../test/helpers/packedPackage';
import { rawRequest } from '../../test/helpers/rawRequest';
import { expectNdjsonAnswer } from '../../test/helpers/wireAssertions';

const run = promisify(execFile);
const manifest = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { name: string; version: string; bin: Record<string, string>; files: string[] };

describe('npm pack (gateway/)', () => {
  let packed: PackedTarball;
  beforeAll(async () => {
    packed = await packedGatewayTarball();
  }, 300_000);

  it('publishes chatflux-gateway with its bin, its build and its page, and nothing else', () => {
    expect([packed.name, packed.version]).toEqual([manifest.name, manifest.version]);
    expect(packed.files).toEqual(expect.arrayContaining(['bin/chatflux-gateway.cjs', 'dist/main.js', 'dist/public/index.html', 'package.json', 'README.md', 'LICENSE']));
    expect(packed.files.filter((path) => !/^(dist\/.+\.(js|js\.map|html)|bin\/chatflux-gateway\.cjs|package\.json|README\.md|LICENSE)$/.test(path))).toEqual([]);
  });
});

describe('the gateway tarball installed in an empty project', () => {
  let project: string;
  beforeAll(async () => {
    project = await installedGatewayProject();
  }, 600_000);

  it('the installed chatflux-gateway answers --version and --help, and exits', async () => {
    const bin = join(project, 'node_modules', '.bin', 'chatflux-gateway');
    const version = await run(bin, ['--version'], { cwd: project, env: userEnv({ PORT: '0' }), timeout: 30_000 });
    expect(version).toEqual({ stdout: `${manifest.version}\n`, stderr: '' });
    const help = await run(bin, ['--help'], { cwd: project, env: userEnv({ PORT: '0' }), timeout: 30_000 });
    expect(help.stdout).toMatch(/^Usage: chatflux-gateway \[--help \| --version\]\n[\s\S]*\n {2}provider: {5}emulator/);
  }, 60_000);

  it('npx chatflux-gateway serves the three endpoints', async () => {
    const child = spawn('npx', ['chatflux-gateway'], { cwd: project, env: userEnv({ PORT: '0' }), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      child.stdout.resume();
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL printed: ${stderr}`)), 30_000);
        child.stderr.on('data', () => {
          const found = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
          if (found === undefined) return;
          clearTimeout(timer);
          resolve(found);
        });
      });
      expectNdjsonAnswer(await rawRequest(`${url}/chat/stream`, { body: { messages: [{ role: 'user', content: 'hi' }] } }));
      expect((await rawRequest(`${url}/`)).body).toContain('<title>chatflux gateway</title>');
    } finally {
      process.kill(-(child.pid as number), 'SIGINT'); // as a terminal's Ctrl-C
      await exited;
    }
  }, 60_000);
});
