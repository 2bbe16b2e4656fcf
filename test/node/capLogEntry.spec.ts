/**
 * The request log's string fields are capped: a client naming a 200 KB model (served, and refused by a policy whose
 * message quotes it) does not write a log line of its own size.
 */
import { startEmulator, type Emulator } from '../../src/testing/startEmulator.js';
import type { ChatRequestLog } from '../../src/serve/ChatRequestLog.js';
import { capLogEntry } from '../../src/serve/capLogEntry.js';
import { startExpressRouter } from '../nestjs/startNestApp.js';
import { rawRequest } from '../helpers/rawRequest.js';

const HUGE_MODEL = `deepseek-chat-${'m'.repeat(200_000)}`;
const request = { model: HUGE_MODEL, messages: [{ role: 'user', content: 'hi' }] };

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ dialect: 'deepseek', seed: 4, requestLog: false });
});
afterAll(async () => emulator.close());

const client = () => ({ provider: 'openai-compatible' as const, baseUrl: emulator.url, apiKey: 'k', model: 'deepseek-chat', retry: false as const });

describe('log field caps', () => {
  const logOf = async (extra: object): Promise<ChatRequestLog[]> => {
    const logs: ChatRequestLog[] = [];
    const server = await startExpressRouter({ client: client(), log: (entry) => logs.push(entry), ...extra });
    try {
      await rawRequest(`${server.url}/chat/stream`, { body: request });
      await new Promise((resolve) => setTimeout(resolve, 50));
      return logs;
    } finally {
      await server.close();
    }
  };

  it('a 200 KB model name, served, writes a short log line (default cap 1024 characters)', async () => {
    const logs = await logOf({});
    expect(logs).toHaveLength(1);
    expect(JSON.stringify(logs[0]).length).toBeLessThan(4000);
    expect(logs[0]?.model).toMatch(/^deepseek-chat-m+… \(200014 chars\)$/);
    expect(logs[0]?.model?.length).toBeLessThan(1100);
  });

  it('a 200 KB model name refused by the policy (its error message quotes the model) writes a short log line', async () => {
    const logs = await logOf({ requestPolicy: { allowedModels: ['deepseek-chat'] } });
    expect(logs).toHaveLength(1);
    expect(logs[0]?.status).toBe(400);
    expect(JSON.stringify(logs[0]).length).toBeLessThan(4000);
    expect(logs[0]?.error?.message).toMatch(/chars\)$/);
  });

  it('maxLogFieldChars sets the cap', async () => {
    const logs: ChatRequestLog[] = [];
    const server = await startExpressRouter({ client: client(), log: (entry) => logs.push(entry), maxLogFieldChars: 40 });
    try {
      await rawRequest(`${server.url}/chat/json`, { body: request });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(logs[0]?.model).toBe(`${HUGE_MODEL.slice(0, 40)}… (200014 chars)`);
    } finally {
      await server.close();
    }
  });

  it('caps strings and bounds objects nested in usage', () => {
    const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, extra: { note: 'x'.repeat(5000), deep: { a: { b: { c: 'y' } } } } };
    const entry: ChatRequestLog = { endpoint: '/chat/json', method: 'POST', status: 200, result: 'completed', durationMs: 1, chunks: 1, bytes: 1, usage };
    const capped = capLogEntry(entry, 100) as unknown as { usage: { extra: { note: string; deep: { a: unknown } } } };
    expect(capped.usage.extra.note).toBe(`${'x'.repeat(100)}… (5000 chars)`);
    expect(capped.usage.extra.deep.a).toBeUndefined(); // 4 levels: entry, usage, extra, deep
    expect(entry.usage).toBe(usage); // the entry itself is left alone
  });
});
