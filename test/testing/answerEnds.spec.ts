/**
 * The emulator's built-in answers read as finished when they say they are: a complete answer (`finish_reason: "stop"`)
 * holds its whole opening (`关于「…」，`, a long prompt quoted up to a point and then `…`) and ends at a sentence's
 * end, in every dialect, streamed or not; a token-limited one (`"length"`) is the complete answer's beginning and may
 * stop anywhere. (The demo page once showed a `deepseek-reasoner` answer that stopped inside its quote, beside
 * "done".)
 */
import fc from 'fast-check';
import type { ChatCompletionRequest } from '../../src/core/schemas';
import type { EmulatorDialect } from '../../src/testing/EmulatorDialect';
import { planAnswer } from '../../src/testing/planAnswer';
import { startEmulator, type Emulator } from '../../src/testing/startEmulator';
import { dataOf, rawPost } from './helpers/rawPost';

const ENDS_A_SENTENCE = /[。！]$/u;
/** The opening, closed: `关于「` … `」，` with no `」` inside the quote. */
const OPENING = /^关于「[^」]*」，/u;

const MODELS: ReadonlyArray<readonly [EmulatorDialect, string]> = [
  ['deepseek', 'deepseek-chat'],
  ['deepseek', 'deepseek-reasoner'],
  ['moonshot', 'kimi-k2-0905-preview'],
  ['moonshot', 'kimi-k2-thinking'],
  ['moonshot', 'moonshot-v1-8k'],
  ['openai', 'gpt-4o-mini'],
];
const PROMPTS = [
  'Hi',
  'Hello! Please introduce yourself in a few sentences.', // the gateway's demo prompt
  'Explain backpressure in RxJS in two sentences, with one example of a slow consumer.',
  '用一句话解释背压是什么意思，并给一个例子，再说说取消订阅的时候会发生什么',
  '👍🚀✨ emoji only, and then quite a lot of words after them',
];

interface Answer {
  texts: string[];
  finishes: unknown[];
}

/** The choices' texts and finish reasons of a streamed answer (every dialect puts them in `choices[i]`). */
const streamed = (body: string): Answer => {
  const texts: string[] = [];
  const finishes: unknown[] = [];
  for (const data of dataOf(body).filter((d) => d !== '[DONE]')) {
    const chunk = JSON.parse(data) as { choices: Array<{ index: number; delta?: { content?: string | null }; finish_reason?: unknown }> };
    for (const choice of chunk.choices) {
      texts[choice.index] = (texts[choice.index] ?? '') + (choice.delta?.content ?? '');
      if (choice.finish_reason != null) finishes[choice.index] = choice.finish_reason;
    }
  }
  return { texts, finishes };
};

/** The same of a non-streamed answer. */
const whole = (body: string): Answer => {
  const completion = JSON.parse(body) as { choices: Array<{ message: { content: string }; finish_reason: unknown }> };
  return { texts: completion.choices.map((c) => c.message.content), finishes: completion.choices.map((c) => c.finish_reason) };
};

describe("the emulator's built-in answers", () => {
  for (const dialect of ['deepseek', 'moonshot', 'openai'] as const) {
    describe(dialect, () => {
      let emulator: Emulator;
      beforeAll(async () => {
        emulator = await startEmulator({ dialect, seed: 1 });
      });
      afterAll(async () => {
        await emulator.close();
      });

      const ask = async (body: Record<string, unknown>): Promise<Answer> => {
        const res = await rawPost(emulator.url, body);
        expect(res.status).toBe(200);
        return body['stream'] === true ? streamed(res.body.toString('utf8')) : whole(res.body.toString('utf8'));
      };

      it.each(MODELS.filter(([d]) => d === dialect).map(([, model]) => model))(
        '%s: a complete answer holds its whole opening and ends at a sentence end, streamed or not, for every prompt',
        async (model) => {
          for (const content of PROMPTS) {
            for (const stream of [true, false]) {
              for (const seed of [1, 2, 3, 4, 5, 6]) {
                const answer = await ask({ model, seed, stream, n: 2, messages: [{ role: 'user', content }] });
                expect(answer.texts.length).toBeGreaterThan(0);
                answer.texts.forEach((text, i) => {
                  expect(answer.finishes[i]).toBe('stop');
                  expect(text).toMatch(OPENING);
                  expect(text).toMatch(ENDS_A_SENTENCE);
                });
              }
            }
          }
        },
      );

      it('a token-limited answer is the complete answer\'s beginning, with finish_reason "length"', async () => {
        const [, model] = MODELS.find(([d]) => d === dialect)!;
        const messages = [{ role: 'user', content: PROMPTS[2] }];
        const complete = await ask({ model, seed: 9, messages });
        for (const max_tokens of [1, 3, 6, 12]) {
          const cut = await ask({ model, seed: 9, messages, max_tokens, stream: true });
          expect(cut.finishes).toEqual(['length']);
          expect(complete.texts[0]!.startsWith(cut.texts[0]!)).toBe(true);
          expect(cut.texts[0]!.length).toBeLessThan(complete.texts[0]!.length);
        }
      });
    });
  }

  it('ends at a sentence end for any prompt (planAnswer, every dialect; property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...MODELS),
        fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.lorem({ maxCount: 20 })),
        fc.integer({ min: 0, max: 1_000_000 }),
        ([dialect, model], content, seed) => {
          const request = { model, messages: [{ role: 'user', content }] } as ChatCompletionRequest;
          const plan = planAnswer(request, { dialect, seed });
          // The quote: the prompt (whitespace folded), or its first 24 code points and `…`.
          const said = Array.from(content.replace(/\s+/g, ' ').trim());
          const quote = said.length > 24 ? `${said.slice(0, 24).join('').trimEnd()}…` : said.join('') || '…';
          for (const choice of plan.choices) {
            const text = [...choice.content()].join('');
            expect(choice.finishReason).toBe('stop');
            expect(text.startsWith(`关于「${quote}」，`)).toBe(true);
            expect(text.length).toBeGreaterThan(`关于「${quote}」，`.length + 1); // a word, then the end
            expect(text).toMatch(ENDS_A_SENTENCE);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
