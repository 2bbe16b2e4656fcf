/**
 * The emulator continues an assistant prefix per dialect (DeepSeek `prefix: true` on the beta path, Moonshot
 * `partial: true`, openai a trailing assistant message): the continuation is the rest of the answer the request
 * without the prefix gets, so prefix + continuation is that answer; a prefill the provider does not take (`prefill=…`)
 * is answered afresh. Also `reject-prefill`, `down-for`,
 * `context-window` and `error-code`.
 */
import type { EmulatorDialect } from '../../src/testing/EmulatorDialect';
import { parseScenario } from '../../src/testing/parseScenario';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { rawPost } from './helpers/rawPost';

const MESSAGES = [{ role: 'user', content: '你好' }];
let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/** The streamed text (content, reasoning) of one request. */
async function answer(url: string, body: Record<string, unknown>, path?: string): Promise<{ status: number; content: string; reasoning: string; raw: string }> {
  const res = await rawPost(url, { stream: true, ...body }, path === undefined ? {} : { path });
  const raw = res.body.toString('utf8');
  let content = '';
  let reasoning = '';
  for (const line of raw.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const delta = (JSON.parse(line.slice(6)) as { choices: Array<{ delta?: { content?: string | null; reasoning_content?: string | null } }> }).choices[0]?.delta;
    content += delta?.content ?? '';
    reasoning += delta?.reasoning_content ?? '';
  }
  return { status: res.status, content, reasoning, raw };
}

describe('emulator continuation of an assistant prefix', () => {
  const cases: Array<[EmulatorDialect, string, Record<string, unknown>, string | undefined]> = [
    ['deepseek', 'deepseek-chat', { prefix: true }, '/beta/chat/completions'],
    ['moonshot', 'kimi-k2-0905-preview', { partial: true }, undefined],
    ['openai', 'gpt-4o-mini', {}, undefined],
  ];
  it.each(cases)('%s: prefix + continuation is the whole answer, for any cut point', async (dialect, model, mark, path) => {
    emulator = await startEmulator({ dialect, seed: 3, scenario: 'tokens=40' });
    const whole = await answer(emulator.url, { model, messages: MESSAGES });
    expect(whole.content.length).toBeGreaterThan(20);
    for (const cut of [1, 7, 20, whole.content.length]) {
      const prefix = whole.content.slice(0, cut);
      const rest = await answer(emulator.url, { model, messages: [...MESSAGES, { role: 'assistant', content: prefix, ...mark }] }, path);
      expect(rest.status).toBe(200);
      expect(prefix + rest.content).toBe(whole.content);
    }
  });

  it('a prefill the provider does not take is answered afresh: the answer starts again (the same opening, other words)', async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 3, scenario: 'tokens=40' });
    const whole = await answer(emulator.url, { model: 'deepseek-chat', messages: MESSAGES });
    const opening = whole.content.slice(0, whole.content.indexOf('，') + 1);
    expect(opening).toBe('关于「你好」，');
    const prefix = whole.content.slice(0, 20);
    // DeepSeek without `prefix: true` (what a target declared `prefill: "assistant"` sends it): history, not a prefix.
    const plain = { model: 'deepseek-chat', messages: [...MESSAGES, { role: 'assistant', content: prefix }] };
    const afresh = await answer(emulator.url, plain);
    expect(afresh.status).toBe(200);
    expect(afresh.content.startsWith(opening)).toBe(true);
    expect(prefix + afresh.content).not.toBe(whole.content);
    expect(afresh.content).not.toBe(whole.content);
    // prefill=assistant: this provider takes the plain trailing message as the beginning of its answer.
    emulator.setScenario('tokens=40;prefill=assistant');
    expect(prefix + (await answer(emulator.url, plain)).content).toBe(whole.content);
    // prefill=none (OpenAI's own models): even the dialect's own mark is history.
    emulator.setScenario('tokens=40;prefill=none');
    const marked = await answer(emulator.url, { model: 'deepseek-chat', messages: [...MESSAGES, { role: 'assistant', content: prefix, prefix: true }] }, '/beta/chat/completions');
    expect(marked.content.startsWith(opening)).toBe(true);
    expect(prefix + marked.content).not.toBe(whole.content);
    expect(() => parseScenario('prefill=maybe')).toThrow('"prefill" is prefix, partial, assistant or none, got "maybe"');
  });

  it("a continuation's max_tokens counts the tokens it generates (the prefix is prompt); a limit does not change the words", async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 3, scenario: 'tokens=40' });
    const whole = await answer(emulator.url, { model: 'deepseek-chat', messages: MESSAGES });
    const five = await answer(emulator.url, { model: 'deepseek-chat', messages: MESSAGES, max_tokens: 5 });
    expect(whole.content.startsWith(five.content)).toBe(true);
    expect(five.raw).toContain('"finish_reason":"length"');
    const pieces = five.raw
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => (JSON.parse(line.slice(6)) as { choices: Array<{ delta?: { content?: string | null } }> }).choices[0]?.delta?.content ?? '')
      .filter((piece) => piece !== '');
    expect(pieces).toHaveLength(5);
    const prefix = pieces.slice(0, 3).join(''); // 3 of the 5 pieces: 2 left
    const rest = await answer(emulator.url, { model: 'deepseek-chat', max_tokens: 2, messages: [...MESSAGES, { role: 'assistant', content: prefix, prefix: true }] }, '/beta/chat/completions');
    expect(prefix + rest.content).toBe(five.content);
    expect(rest.raw).toContain('"finish_reason":"length"');
  });

  it('a thinking model cut during its reasoning continues the reasoning, then the text; cut during the text, no reasoning again', async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 3, scenario: 'tokens=20' });
    const whole = await answer(emulator.url, { model: 'deepseek-reasoner', messages: MESSAGES });
    expect(whole.reasoning.length).toBeGreaterThan(4);
    const half = whole.reasoning.slice(0, 4);
    const rest = await answer(emulator.url, { model: 'deepseek-reasoner', messages: [...MESSAGES, { role: 'assistant', content: '', reasoning_content: half, prefix: true }] }, '/beta/chat/completions');
    expect(half + rest.reasoning).toBe(whole.reasoning);
    expect(rest.content).toBe(whole.content);
    const after = await answer(emulator.url, { model: 'deepseek-reasoner', messages: [...MESSAGES, { role: 'assistant', content: whole.content.slice(0, 5), prefix: true }] }, '/beta/chat/completions');
    expect(after.reasoning).toBe('');
    expect(whole.content.slice(0, 5) + after.content).toBe(whole.content);
  });

  it('reject-prefill refuses any prefill with a 400 (the beta path and the usual one alike), and nothing else', async () => {
    emulator = await startEmulator({ dialect: 'deepseek', seed: 3 });
    const prefixed = { model: 'deepseek-chat', messages: [...MESSAGES, { role: 'assistant', content: '关于', prefix: true }] };
    expect((await answer(emulator.url, prefixed)).status).toBe(200);
    emulator.setScenario('reject-prefill');
    expect((await answer(emulator.url, prefixed)).status).toBe(400);
    const refused = await answer(emulator.url, prefixed, '/beta/chat/completions');
    expect(refused.status).toBe(400);
    expect(refused.raw).toContain('invalid_request_error');
    expect((await answer(emulator.url, { model: 'deepseek-chat', messages: MESSAGES })).status).toBe(200);
  });

  it('down-for answers 503 from the first request for that long, then normally', async () => {
    emulator = await startEmulator({ dialect: 'deepseek', scenario: 'down-for=300' });
    expect((await answer(emulator.url, { model: 'deepseek-chat', messages: MESSAGES })).status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await answer(emulator.url, { model: 'deepseek-chat', messages: MESSAGES })).status).toBe(200);
  });

  it('context-window refuses a longer prompt with the dialect\'s context_length_exceeded; error-code sets the code', async () => {
    emulator = await startEmulator({ dialect: 'openai', scenario: 'context-window=3' });
    const refused = await answer(emulator.url, { model: 'gpt-4o-mini', messages: MESSAGES });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.raw)).toMatchObject({ error: { code: 'context_length_exceeded', type: 'invalid_request_error' } });
    expect(JSON.parse(refused.raw).error.message).toContain('maximum context length is 3 tokens');
    emulator.setScenario('status=400;error-code=content_policy_violation');
    expect(JSON.parse((await answer(emulator.url, { model: 'gpt-4o-mini', messages: MESSAGES })).raw)).toMatchObject({ error: { code: 'content_policy_violation' } });
  });
});
