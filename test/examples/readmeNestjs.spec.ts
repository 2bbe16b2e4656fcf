/**
 * The README's NestJS snippet, run as written: its module (`ChatfluxModule.forRoot({ …, routes: { prefix: 'v1' } })`
 * beside a controller of the user's) serves the contract's endpoints under `/v1/chat/` and OpenAI's at
 * `/v1/chat/completions` and `/v1/models` — where an OpenAI client with the base URL `…/v1` asks — not at `/v1/v1/…`.
 * The snippet's client is the `deepseek` preset: only what is answered before the upstream is asked (`GET /v1/models`,
 * refusals of bad bodies) is requested here, so nothing leaves the machine.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Type } from '@nestjs/common';
import { startNestApp, type NestTestApp } from '../nestjs/startNestApp';
import { rawRequest } from '../helpers/rawRequest';
import { expectErrorBeforeCommit } from '../helpers/wireAssertions';

const root = join(__dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const snippet = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)]
  .map((match) => match[1] ?? '')
  .find((code) => code.includes("from 'chatflux/nestjs'") && code.includes('ChatfluxModule.forRoot(') && code.includes('export class AppModule'));
// Inside the repository, so that jest's transform and the `chatflux` mapping apply (ignored as readme.spec's); removed afterwards.
const dir = join(root, 'test', 'examples', `.readme-snippets-nestjs-${process.pid}`);

describe("README's NestJS snippet", () => {
  let nest: NestTestApp;
  const saved = process.env['DEEPSEEK_API_KEY'];
  beforeAll(async () => {
    expect(snippet).toBeDefined();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'app.module.ts'), snippet!);
    process.env['DEEPSEEK_API_KEY'] = 'sk-readme-snippet'; // the preset's key, read when the module starts
    const { AppModule } = (await import(join(dir, 'app.module'))) as { AppModule: Type<unknown> };
    nest = await startNestApp({ imports: [AppModule] }, { bodyParser: false }); // as the README says to create it
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

  it("serves the snippet's own controller beside them", async () => {
    const res = await rawRequest(`${nest.url}/assistant/ask`, { body: { messages: 'not a list' } });
    expectErrorBeforeCommit(res, '/chat/sse', 400, 'invalid_request');
  });
});
