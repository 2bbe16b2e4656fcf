/**
 * The package as a user installs it: `npm pack` (its `prepare` builds dist/), the tarball installed by npm into an
 * empty project with the peer dependencies, then every entry point loaded with require and import, and a file
 * importing them all type-checked under the three module resolutions users have (node16, bundler, node10).
 * No build in the tarball fails every test here.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { installFrameworkProjects } from '../helpers/installFrameworkProjects';
import { installedPackages } from '../helpers/installedPackages';
import { installedProject, packedTarball, ROOT, userEnv, type PackedTarball } from '../helpers/packedPackage';
import { rawRequest } from '../helpers/rawRequest';

const run = promisify(execFile);

interface Manifest {
  name: string;
  version: string;
  exports: Record<string, string | Record<string, Record<string, string>>>;
  typesVersions: Record<string, Record<string, string[]>>;
  bin: Record<string, string>;
  peerDependencies: Record<string, string>;
  repository?: unknown;
  [field: string]: unknown;
}
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;
const SUBPATHS = Object.keys(manifest.exports).filter((subpath) => subpath !== './package.json');
const SPECIFIERS = SUBPATHS.map((subpath) => (subpath === '.' ? 'chatflux' : `chatflux/${subpath.slice(2)}`));


/** The files a tarball may contain. */
const ALLOWED = [
  /^dist\/(cjs|esm)\/.+\.(js|d\.ts|js\.map)$/,
  /^dist\/(cjs|esm)\/package\.json$/,
  /^operators\/package\.json$/,
  /^bin\/chatflux-emulator\.cjs$/,
  /^(README\.md|CHANGELOG\.md|LICENSE|package\.json)$/,
];

/** Every file the exports map, typesVersions and the bins point to. */
const targetsOf = (entry: unknown): string[] =>
  typeof entry === 'string' ? [entry] : Array.isArray(entry) ? entry.flatMap(targetsOf) : entry !== null && typeof entry === 'object' ? Object.values(entry).flatMap(targetsOf) : [];
const TARGETS = [...new Set([...targetsOf(manifest.exports), ...targetsOf(manifest.typesVersions), ...targetsOf(manifest.bin)])].map((target) =>
  target.replace(/^\.\//, ''),
);

describe('npm pack', () => {
  let packed: PackedTarball;
  beforeAll(async () => {
    packed = await packedTarball();
  }, 300_000);

  it('publishes the name and version of package.json, with the version in the changelog', () => {
    expect([packed.name, packed.version]).toEqual([manifest.name, manifest.version]);
    expect(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')).toContain(`## [${manifest.version}]`);
  });

  it('contains the build: every file of the exports map, typesVersions and the bins (the emulator)', () => {
    expect(TARGETS.length).toBeGreaterThan(20);
    expect(TARGETS.filter((target) => !packed.files.includes(target))).toEqual([]);
    expect(packed.files).toEqual(expect.arrayContaining(['dist/cjs/testing/cli.js']));
  });

  it('leaves the gateway to its own package (chatflux-gateway): no gateway file, no gateway bin, none of its dependencies', () => {
    expect(packed.files.filter((path) => /gateway/i.test(path))).toEqual([]);
    expect(Object.keys(manifest.bin)).toEqual(['chatflux-emulator']);
    const dependencies = Object.keys(manifest['dependencies'] as Record<string, string>);
    expect(dependencies.filter((name) => /^(express|cors|pino|yaml)$|^@opentelemetry\//.test(name))).toEqual([]);
  });

  it('contains only the build, the subpath alias, the bins and the documents: no sources, tests or configuration', () => {
    expect(packed.files.filter((path) => !ALLOWED.some((pattern) => pattern.test(path)))).toEqual([]);
    expect(packed.files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'operators/package.json']));
  });

  it('has the metadata a registry page needs', () => {
    expect(manifest).toMatchObject({
      license: 'MIT',
      description: expect.any(String),
      keywords: expect.arrayContaining(['rxjs', 'sse']),
      engines: { node: expect.any(String) },
      publishConfig: { access: 'public' },
      sideEffects: false,
    });
    // Peers: Express 4 and 5, NestJS 10 to 12 with their platform packages, the OpenTelemetry API (the library's
    // telemetry; the gateway's OpenTelemetry SDK pieces are dependencies), node-redis (chatflux/redis), all optional but rxjs.
    expect(manifest.peerDependencies).toEqual({
      rxjs: '^7.8.0',
      express: '^4.21.0 || ^5.0.0',
      '@nestjs/common': '^10.0.0 || ^11.0.0 || ^12.0.0',
      '@nestjs/core': '^10.0.0 || ^11.0.0 || ^12.0.0',
      '@nestjs/platform-express': '^10.0.0 || ^11.0.0 || ^12.0.0',
      '@nestjs/platform-fastify': '^10.0.0 || ^11.0.0 || ^12.0.0',
      '@opentelemetry/api': '^1.9.0',
      redis: '^6.0.0',
    });
    expect(Object.keys(manifest['peerDependenciesMeta'] as object).sort()).toEqual(Object.keys(manifest.peerDependencies).filter((name) => name !== 'rxjs').sort());
  });
});

describe('the tarball installed in an empty project', () => {
  let project: string;
  const node = async (args: string[]): Promise<string> =>
    (await run(process.execPath, args, { cwd: project, env: userEnv(), timeout: 60_000 }).catch((error: { stderr?: string }) => {
      throw new Error(`node ${args.join(' ')}: ${error.stderr ?? String(error)}`);
    })).stdout;

  beforeAll(async () => {
    // The other projects install meanwhile, for test/frameworks.
    project = (await installFrameworkProjects()).current;
  }, 600_000);

  it.each(SPECIFIERS)('%s: require and import load it, with the same names', async (specifier) => {
    const viaRequire = await node(['-e', `require('reflect-metadata'); console.log(JSON.stringify(Object.keys(require(${JSON.stringify(specifier)})).sort()))`]);
    const viaImport = await node([
      '--input-type=module',
      '-e',
      `import 'reflect-metadata'; const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(m).filter((k) => k !== 'default').sort()))`,
    ]);
    const names = JSON.parse(viaRequire) as string[];
    expect(names.length).toBeGreaterThan(0);
    expect(JSON.parse(viaImport)).toEqual(names);
  });

  it('runs a pipeline from either build', async () => {
    const sse = 'data: {"id":"c1","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"你好"},"finish_reason":"stop"}]}\\n\\ndata: [DONE]\\n\\n';
    const pipeline = `lastValueFrom(of(new TextEncoder().encode('${sse}')).pipe(parseSse(), decodeChunk(), toOutput())).then((out) => console.log(out.message.content))`;
    const esm = await node(['--input-type=module', '-e', `import { of, lastValueFrom } from 'rxjs'; import { parseSse, decodeChunk, toOutput } from 'chatflux'; await ${pipeline};`]);
    const cjs = await node(['-e', `const { of, lastValueFrom } = require('rxjs'); const { parseSse, decodeChunk, toOutput } = require('chatflux/operators'); ${pipeline};`]);
    expect([esm.trim(), cjs.trim()]).toEqual(['你好', '你好']);
  });

  it('keeps chatflux/operators resolvable for tools without exports support (operators/package.json)', () => {
    const alias = JSON.parse(readFileSync(join(project, 'node_modules/chatflux/operators/package.json'), 'utf8')) as { main: string; types: string; module: string };
    for (const file of [alias.main, alias.types, alias.module]) expect(readFileSync(join(project, 'node_modules/chatflux/operators', file), 'utf8').length).toBeGreaterThan(0);
  });

  describe('type-checks a file importing every entry point', () => {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    // One value of each entry point, used, so that nothing is elided; `satisfies` checks a type from each.
    const source = (quote: (specifier: string) => string): string =>
      [
        `import { parseSse, type LlmClientOutputChunk } from ${quote('chatflux')};`,
        `import { toOutput } from ${quote('chatflux/operators')};`,
        `import { sendSse, type SendSseConfig } from ${quote('chatflux/node')};`,
        `import { chatRouter } from ${quote('chatflux/express')};`,
        `import { ChatfluxModule, type ChatfluxModuleConfig } from ${quote('chatflux/nestjs')};`,
        `import { startEmulator, type EmulatorConfig } from ${quote('chatflux/testing')};`,
        `import { toResponse } from ${quote('chatflux/web')};`,
        `export const used = [parseSse, toOutput, sendSse, chatRouter, ChatfluxModule, startEmulator, toResponse] as const;`,
        `export const chunk: LlmClientOutputChunk | undefined = undefined;`,
        `export const config = { heartbeatMs: 1000 } satisfies SendSseConfig;`,
        `export const nest = { client: { baseUrl: 'http://127.0.0.1:1/v1' } } satisfies ChatfluxModuleConfig;`,
        `export const emulator = { dialect: 'moonshot' } satisfies EmulatorConfig;`,
        '',
      ].join('\n');
    const cases = [
      { name: 'node16 (CommonJS file)', file: 'check-node16.cts', options: { module: 'node16', moduleResolution: 'node16' } },
      { name: 'node16 (ES module file)', file: 'check-node16.mts', options: { module: 'node16', moduleResolution: 'node16' } },
      { name: 'bundler', file: 'check-bundler.ts', options: { module: 'esnext', moduleResolution: 'bundler' } },
      { name: 'node10 (moduleResolution: node, module: commonjs)', file: 'check-node10.ts', options: { module: 'commonjs', moduleResolution: 'node10' } },
    ];
    // The four compilations run side by side (each takes seconds), then each case reads its own diagnostics.
    const outputs = new Map<string, string>();
    beforeAll(async () => {
      await Promise.all(
        cases.map(async ({ file, options }) => {
          writeFileSync(join(project, file), source((specifier) => `'${specifier}'`));
          const config = `tsconfig.${file}.json`;
          writeFileSync(
            join(project, config),
            JSON.stringify({ compilerOptions: { ...options, target: 'es2022', strict: true, noEmit: true, skipLibCheck: true, types: ['node'], esModuleInterop: true }, files: [file] }),
          );
          const output = await run(process.execPath, [tsc, '-p', config], { cwd: project, timeout: 150_000 }).then(
            () => '',
            (error: { stdout?: string }) => error.stdout ?? String(error),
          );
          outputs.set(file, output);
        }),
      );
    }, 180_000);
    it.each(cases)('under $name', ({ file }) => {
      expect(outputs.get(file)).toBe('');
    });
  });

  it('npx chatflux-emulator serves a streaming chat completion', async () => {
    // A process group of its own: npx, its shell and the emulator all get the signal at the end.
    const child = spawn('npx', ['chatflux-emulator', '--port', '0'], { cwd: project, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL printed: ${stdout}`)), 30_000);
        child.stdout.on('data', () => {
          const found = /listening: (http:\/\/\S+)/.exec(stdout)?.[1];
          if (found === undefined) return;
          clearTimeout(timer);
          resolve(found);
        });
      });
      const res = await rawRequest(`${url}/chat/completions`, { body: { model: 'deepseek-chat', stream: true, messages: [{ role: 'user', content: 'hi' }] } });
      expect(res.status).toBe(200);
      expect(res.body).toContain('data: [DONE]');
    } finally {
      process.kill(-(child.pid as number), 'SIGTERM');
      await exited;
    }
  }, 60_000);

  it('nothing of the gateway is installed with the library: no chatflux-gateway bin', () => {
    expect(existsSync(join(project, 'node_modules', '.bin', 'chatflux-gateway'))).toBe(false);
  });
});

describe('the library installed into an empty project with rxjs, nothing else', () => {
  let installed: { packages: string[]; bytes: number };
  beforeAll(async () => {
    const dir = await installedProject('library-only', ['rxjs@7']);
    installed = installedPackages(join(dir, 'node_modules'));
  }, 600_000);

  it('brings fewer than 20 packages (rxjs and its tslib included)', () => {
    expect(installed.packages).toContain('chatflux');
    expect(installed.packages).toContain('rxjs');
    expect(installed.packages.length).toBeLessThan(20);
  });

  it('weighs under 20 MB (the bytes of every file under node_modules, rxjs included)', () => {
    expect(installed.bytes).toBeGreaterThan(1_000_000); // the count is real: chatflux's own build alone is more
    expect(installed.bytes).toBeLessThan(20 * 1024 * 1024);
  });
});
