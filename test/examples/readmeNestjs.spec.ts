/**
 * The NestJS snippet of the adapters guide (docs/adapters.md), run as written: its module (`ChatfluxModule.forRoot({ …, routes: { prefix: 'v1' } })`
 * beside a controller of the user's) serves the contract's endpoints under `/v1/chat/` and OpenAI's at
 * `/v1/chat/completions` and `/v1/models` — where an OpenAI client with the base URL `…/v1` asks — not at `/v1/v1/…`.
 * The snippet's client is the `deepseek` preset: only what is answered before the upstream is asked (`GET /v1/models`,
 * refusals of bad bodies) is requested here, so nothing leaves the machine. Beside it, the guide's `main.ts` (which is
 * examples/nestjs/main.ts verbatim) and the compiler options Nest's decorators need; that `main.ts` is run as a program
 * (`node --import tsx`) beside the guide's module.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Type } from '@nestjs/common';
import { startNestApp, type NestTestApp } from '../nestjs/startNestApp';
import { rawRequest } from '../helpers/rawRequest';
import { waitFor } from '../helpers/streamSources';
import { expectErrorBeforeCommit } from '../helpers/wireAssertions';

const root = join(__dirname, '..', '..');
const guide = readFileSync(join(root, 'docs', 'adapters.md'), 'utf8');
const snippet = [...guide.matchAll(/^```ts\n([\s\S]*?)^```$/gm)]
  .map((match) => match[1] ?? '')
  .find((code) => code.includes("from 'chatflux/nestjs'") && code.includes('ChatfluxModule.forRoot(') && code.includes('export class AppModule'));
const section = guide.slice(guide.indexOf('## `chatflux/nestjs`'), guide.indexOf('## `chatflux/web`'));
const exampleMain = readFileSync(join(root, 'examples', 'nestjs', 'main.ts'), 'utf8');
const mainSnippet = [...section.matchAll(/^```typescript\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '').find((code) => code.includes('NestFactory.create('));
// Inside the repository, so that jest's transform and the `chatflux` mapping apply (ignored as readme.spec's); removed afterwards.
const dir = join(root, 'test', 'examples', `.readme-snippets-nestjs-${process.pid}`);

describe("the adapters guide's NestJS snippet", () => {
  let nest: NestTestApp;
  const saved = process.env['DEEPSEEK_API_KEY'];
  beforeAll(async () => {
    expect(snippet).toBeDefined();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'app.module.ts'), snippet!);
    process.env['DEEPSEEK_API_KEY'] = 'sk-readme-snippet'; // the preset's key, read when the module starts
    const { AppModule } = (await import(join(dir, 'app.module'))) as { AppModule: Type<unknown> };
    nest = await startNestApp({ imports: [AppModule] }, { bodyParser: false }); // as the guide says to create it
  });
  afterAll(async () => {
    await nest?.close();
    rmSync(dir, { recursive: true, force: true });
    if (saved === undefined) delete process.env['DEEPSEEK_API_KEY'];
    else process.env['DEEPSEEK_API_KEY'] = saved;
  });

  it('serves OpenAI\'s endpoints at /v1/chat/completions and /v1/models, for a client whose base URL is …/v1', async () => {
    const models = await rawRequest(`${nest.url}/v1/models`);
    expect(models.status).toBe(200);
    expect(JSON.parse(models.body)).toMatchObject({ object: 'list', data: [{ id: 'deepseek-chat', object: 'model' }] });
    const refused = await rawRequest(`${nest.url}/v1/chat/completions`, { body: { model: 'deepseek-chat' } }); // no messages
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { type: 'invalid_request_error', param: null } });
  });

  it('serves the contract\'s endpoints under /v1/chat/, and nothing under /v1/v1/', async () => {
    for (const endpoint of ['/chat/json', '/chat/stream', '/chat/sse'] as const) {
      expectErrorBeforeCommit(await rawRequest(`${nest.url}/v1${endpoint}`, { body: {} }), endpoint, 400, 'invalid_request');
    }
    expect((await rawRequest(`${nest.url}/v1/v1/chat/completions`, { body: {} })).status).toBe(404);
    expect((await rawRequest(`${nest.url}/v1/v1/models`)).status).toBe(404);
  });

  it('shows a main.ts, examples/nestjs/main.ts verbatim, and the compiler options and package its decorators need', () => {
    expect(mainSnippet).toBe(exampleMain);
    expect(exampleMain.split('\n')[0]).toMatch(/^import 'reflect-metadata';/); // first, before Nest's own imports
    expect(section).toContain('npm install reflect-metadata');
    const options = [...section.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((match) => JSON.parse(match[1] ?? '') as { compilerOptions?: unknown });
    expect(options).toContainEqual({ compilerOptions: { experimentalDecorators: true, emitDecoratorMetadata: true } });
  });

  it('its main.ts starts the app as a program, beside the guide\'s module, and shuts it down on SIGTERM', async () => {
    writeFileSync(join(dir, 'main.ts'), mainSnippet!);
    // The repository's compiler options (the decorators' among them) for these files, which its `include` skips.
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: relative(dir, join(root, 'tsconfig.json')), files: ['main.ts', 'app.module.ts'] }));
    const child = spawn(process.execPath, ['--import', 'tsx', join(dir, 'main.ts')], {
      cwd: root,
      env: { ...process.env, NODE_OPTIONS: '', PORT: '0', DEEPSEEK_API_KEY: 'sk-readme-snippet', TSX_TSCONFIG_PATH: join(dir, 'tsconfig.json') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
    let ended = false;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    ).finally(() => (ended = true));
    try {
      await waitFor(() => ended || /listening on (http:\/\/\S+)/.test(output), 60_000).catch((error: unknown) => {
        throw new Error(`main.ts did not print "listening on" within 60 s; its output:\n${output}`, { cause: error });
      });
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url === undefined) throw new Error(`main.ts ended without listening; its output:\n${output}`);
      expect((await rawRequest(`${url}/v1/models`)).status).toBe(200);
      expectErrorBeforeCommit(await rawRequest(`${url}/assistant/ask`, { body: { messages: 'not a list' } }), '/chat/sse', 400, 'invalid_request');
      child.kill('SIGTERM');
      // enableShutdownHooks: app.close(), then Nest raises the signal again, so the process ends by it (no crash).
      expect(await exited).toEqual({ code: null, signal: 'SIGTERM' });
      expect(output).not.toMatch(/Error/);
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);

  it("serves the snippet's own controller beside them", async () => {
    const res = await rawRequest(`${nest.url}/assistant/ask`, { body: { messages: 'not a list' } });
    expectErrorBeforeCommit(res, '/chat/sse', 400, 'invalid_request');
  });
});
