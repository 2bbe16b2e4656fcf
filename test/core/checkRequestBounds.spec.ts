import { checkRequestBounds } from '../../src/core/checkRequestBounds';
import { isConfigError, isRequestError, type RequestError } from '../../src/core/errors';
import { parseChatRequest } from '../../src/core/parseChatRequest';
import { DEFAULT_REQUEST_LIMITS } from '../../src/core/requestLimits';
import { toCompletionRequest } from '../../src/client/toCompletionRequest';
import { promptBound } from '../helpers/promptBound';

const refusal = (run: () => unknown): RequestError => {
  try {
    run();
  } catch (error) {
    if (isRequestError(error)) return error;
    throw error;
  }
  throw new Error('expected a RequestError');
};

const nested = (depth: number): unknown => {
  let value: unknown = 'x';
  for (let i = 1; i < depth; i++) value = [value];
  return value;
};

describe('checkRequestBounds', () => {
  it('passes an ordinary request and bodies the schema should judge (not objects, no messages array)', () => {
    expect(() => checkRequestBounds({ messages: [{ role: 'user', content: 'hi' }] })).not.toThrow();
    for (const body of [null, 'text', 42, [1, 2], { messages: 'hi' }]) expect(() => checkRequestBounds(body)).not.toThrow();
  });

  it('refuses more messages than maxMessages with a 400 that names the count and the limit', () => {
    const error = refusal(() => checkRequestBounds({ messages: Array(11).fill({}) }, { maxMessages: 10 }));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe('the request has 11 messages; at most 10 are accepted');
    expect(() => checkRequestBounds({ messages: Array(10).fill({}) }, { maxMessages: 10 })).not.toThrow();
  });

  it('refuses nesting deeper than maxDepth (the body is depth 1), also past the default without recursion', () => {
    // nested(n): n - 1 arrays around a string; under the body the innermost array is at depth n.
    expect(() => checkRequestBounds({ messages: [], x: nested(4) }, { maxDepth: 4 })).not.toThrow();
    expect(refusal(() => checkRequestBounds({ messages: [], x: nested(5) }, { maxDepth: 4 })).message).toBe(
      'the request body is nested deeper than 4 levels',
    );
    expect(refusal(() => checkRequestBounds({ x: nested(100_000) })).message).toMatch(/deeper than 64/);
  });

  it('refuses more JSON values than maxValues, counting every object, array and primitive', () => {
    const body = { messages: [{ role: 'user', content: 'hi' }] }; // body, messages, message, role, content = 5
    expect(() => checkRequestBounds(body, { maxValues: 5 })).not.toThrow();
    expect(refusal(() => checkRequestBounds(body, { maxValues: 4 })).message).toBe('the request body has more than 4 JSON values');
  });

  it('refuses strings and keys longer than maxChars in all', () => {
    const body = { messages: [{ role: 'user', content: 'x'.repeat(10) }] }; // messages 8, role 4 + user 4, content 7 + 10
    expect(() => checkRequestBounds(body, { maxChars: 33 })).not.toThrow();
    expect(refusal(() => checkRequestBounds(body, { maxChars: 32 })).message).toBe(
      "the request body's strings are longer than 32 characters in all",
    );
  });

  it('stops at the limit: a huge array costs no more than the limit allows', () => {
    const huge = { messages: [{ role: 'user', content: 'x' }], tools: Array(2_000_000).fill(0) };
    const started = performance.now();
    expect(refusal(() => checkRequestBounds(huge)).message).toMatch(/more than 16384 JSON values/);
    const took = performance.now() - started;
    expect(took).toBeLessThan(promptBound(1000)); // generous: it stops before walking 2 M values
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects a limit of %p with a ConfigError naming it', (value) => {
    let caught: unknown;
    try {
      checkRequestBounds({ messages: [] }, { maxMessages: value });
    } catch (error) {
      caught = error;
    }
    expect(isConfigError(caught)).toBe(true);
    expect((caught as Error).message).toMatch(/maxMessages/);
  });

  it('has documented defaults', () => {
    expect(DEFAULT_REQUEST_LIMITS).toEqual({
      maxMessages: 2048,
      maxDepth: 64,
      maxValues: 16_384,
      maxChars: 8 * 1024 * 1024,
      maxIssues: 20,
    });
  });
});

describe('parseChatRequest and toCompletionRequest under hostile bodies', () => {
  // 330 000 empty messages in 990 KB: zod made 660 000 issues of it and blocked the event loop for seconds.
  const emptyMessages = JSON.parse(`{"messages":[${Array(330_000).fill('{}').join(',')}]}`) as unknown;
  // 300 000 empty tool calls: zod's issue list overflowed the stack (a 500 instead of a 400).
  const emptyToolCalls = JSON.parse(
    `{"messages":[{"role":"assistant","content":null,"tool_calls":[${Array(300_000).fill('{}').join(',')}]}]}`,
  ) as unknown;

  it.each([
    ['330 000 empty messages', emptyMessages, /330000 messages; at most 2048/],
    ['300 000 empty tool calls', emptyToolCalls, /more than 16384 JSON values/],
  ])('%s: a clear 400 at once', (_name, body, message) => {
    for (const parse of [() => parseChatRequest(body), () => toCompletionRequest(body, 'm')]) {
      const started = performance.now();
      const error = refusal(parse);
      const took = performance.now() - started;
      expect(took).toBeLessThan(promptBound(500)); // seconds before the bounds
      expect(error.code).toBe('invalid_request');
      expect(error.message).toMatch(message);
    }
  });

  it('keeps at most maxIssues issues and counts the rest in the message', () => {
    const body = { messages: Array(100).fill({}) }; // one issue per message (role): content may be absent (tool calls)
    const error = refusal(() => parseChatRequest(body, undefined, { limits: { maxIssues: 7 } }));
    expect(error.issues).toHaveLength(7);
    expect(error.message).toMatch(/; and 95 more$/);
    const client = refusal(() => toCompletionRequest(body, 'm', { maxIssues: 7 }));
    expect(client.issues).toHaveLength(7);
    expect(client.message).toMatch(/; and 93 more$/); // the upstream schema: one issue per message (role)
  });
});

describe('ZodValidationPipe (chatflux/nestjs) holds bodies to the same limits', () => {
  it('refuses 330 000 empty messages with a clear 400 at once', async () => {
    const { ZodValidationPipe } = await import('../../src/nestjs/chatflux.pipe');
    const { ChatRequest } = await import('../../src/core/schemas/index');
    const body = { messages: Array(330_000).fill({}) };
    const started = performance.now();
    const error = refusal(() => new ZodValidationPipe(ChatRequest).transform(body));
    const took = performance.now() - started;
    expect(took).toBeLessThan(promptBound(500));
    expect(error.message).toMatch(/330000 messages; at most 2048/);
    expect(refusal(() => new ZodValidationPipe(ChatRequest, { maxIssues: 3 }).transform({ messages: Array(10).fill({}) })).issues).toHaveLength(3);
  });
});
