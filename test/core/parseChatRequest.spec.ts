import { applyRequestPolicy } from '../../src/core/applyRequestPolicy';
import { checkRequestPolicy } from '../../src/core/checkRequestPolicy';
import { isConfigError, isRequestError, type RequestError } from '../../src/core/errors';
import { parseChatRequest } from '../../src/core/parseChatRequest';
import type { RequestPolicyConfig } from '../../src/core/RequestPolicyConfig';
import type { ChatRequest } from '../../src/core/schemas';
import { FULL_REQUEST } from '../helpers/fullChatRequest';

const refusal = (run: () => unknown): RequestError => {
  try {
    run();
  } catch (error) {
    if (isRequestError(error)) return error;
    throw error;
  }
  throw new Error('expected a RequestError');
};

describe('parseChatRequest', () => {
  it('passes every field of the OpenAI-compatible request through intact, unknown ones and message fields included', () => {
    expect(parseChatRequest(structuredClone(FULL_REQUEST))).toEqual(FULL_REQUEST);
  });

  it('accepts null as "not set" and passes it on', () => {
    const body = {
      messages: [{ role: 'user', content: 'x' }],
      stop: null,
      seed: null,
      tools: null,
      tool_choice: null,
      max_tokens: null,
      user: null,
    };
    expect(parseChatRequest(body)).toEqual(body);
  });

  it('fills the default model only when the request names none', () => {
    expect(parseChatRequest({ messages: [{ role: 'user', content: 'x' }] }, 'dflt').model).toBe('dflt');
    expect(parseChatRequest({ model: 'own', messages: [{ role: 'user', content: 'x' }] }, 'dflt').model).toBe('own');
  });

  it.each([
    ['seed', '42', 'seed'],
    ['n', 0, 'n'],
    ['max_completion_tokens', 1.5, 'max_completion_tokens'],
    ['top_logprobs', 21, 'top_logprobs'],
    ['logprobs', 'yes', 'logprobs'],
    ['user', 7, 'user'],
    ['parallel_tool_calls', 'no', 'parallel_tool_calls'],
    ['thinking', 'enabled', 'thinking'],
    ['tool_choice', 'sometimes', 'tool_choice'],
    ['response_format', { schema: {} }, 'response_format.type'],
    ['top_p', 2, 'top_p'],
    ['stream', 'yes', 'stream'],
    ['stream_options', 'usage please', 'stream_options'],
    ['stream_options', { include_usage: 'yes' }, 'stream_options.include_usage'],
  ])('a known field of the wrong type is a 400 naming it: %s = %j', (field, value, path) => {
    const error = refusal(() => parseChatRequest({ messages: [{ role: 'user', content: 'x' }], [field]: value }));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(new RegExp(`^invalid request body: ${path.replace('.', '\\.')}: `));
  });

  it('checks message fields too: tool_calls, reasoning_content, prefix', () => {
    expect(
      refusal(() => parseChatRequest({ messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 1 }] }] }))
        .message,
    ).toMatch(/messages\.0\.tool_calls\.0\./);
    expect(
      refusal(() => parseChatRequest({ messages: [{ role: 'assistant', content: 'a', reasoning_content: 5 }] }))
        .message,
    ).toMatch(/messages\.0\.reasoning_content/);
    expect(
      refusal(() => parseChatRequest({ messages: [{ role: 'assistant', content: 'a', prefix: 'yes' }] })).message,
    ).toMatch(/messages\.0\.prefix/);
  });
});

describe('the request policy (parseChatRequest(body, model, { policy }) / applyRequestPolicy)', () => {
  const ask = (extra: Partial<ChatRequest>, policy: RequestPolicyConfig, model?: string) =>
    parseChatRequest({ messages: [{ role: 'user', content: 'x' }], ...extra }, model, { policy });

  it('{} changes nothing', () => {
    expect(parseChatRequest(structuredClone(FULL_REQUEST), undefined, { policy: {} })).toEqual(FULL_REQUEST);
  });

  it('allowedModels: another model is a 400 naming the model and the allowed ones; no model → the default, unchecked', () => {
    expect(ask({ model: 'a' }, { allowedModels: ['a', 'b'] }).model).toBe('a');
    const error = refusal(() => ask({ model: 'gpt-5' }, { allowedModels: ['a', 'b'] }));
    expect(error.message).toBe('invalid request body: model: "gpt-5" is not allowed on this server (allowed: a, b)');
    expect(error.issues).toEqual(['model: "gpt-5" is not allowed on this server (allowed: a, b)']);
    expect(ask({}, { allowedModels: ['a'] }, 'dflt').model).toBe('dflt');
  });

  it('maxTokens: more in max_tokens or max_completion_tokens is refused; none asked → max_tokens = the cap', () => {
    expect(ask({ max_tokens: 100 }, { maxTokens: 100 }).max_tokens).toBe(100);
    expect(refusal(() => ask({ max_tokens: 101 }, { maxTokens: 100 })).message).toBe(
      'invalid request body: max_tokens: at most 100 on this server, got 101',
    );
    expect(refusal(() => ask({ max_completion_tokens: 500 }, { maxTokens: 100 })).message).toMatch(
      /^invalid request body: max_completion_tokens: at most 100/,
    );
    expect(ask({}, { maxTokens: 100 }).max_tokens).toBe(100);
    const withCompletion = ask({ max_completion_tokens: 50 }, { maxTokens: 100 });
    expect(withCompletion).not.toHaveProperty('max_tokens');
    expect(withCompletion.max_completion_tokens).toBe(50);
  });

  it('maxN: more choices are refused', () => {
    expect(ask({ n: 1 }, { maxN: 1 }).n).toBe(1);
    expect(refusal(() => ask({ n: 3 }, { maxN: 2 })).message).toBe(
      'invalid request body: n: at most 2 on this server, got 3',
    );
  });

  it('stripFields: removes those fields, leaves the rest as sent, and never touches the caller’s object', () => {
    const body = structuredClone(FULL_REQUEST);
    const out = parseChatRequest(body, undefined, {
      policy: { stripFields: ['user', 'logprobs', 'top_logprobs', 'x_vendor_flag', 'absent'] },
    });
    const { user: _u, logprobs: _l, top_logprobs: _t, x_vendor_flag: _x, ...rest } = FULL_REQUEST;
    expect(out).toEqual(rest);
    expect(body).toEqual(FULL_REQUEST);
    const request = parseChatRequest({ messages: [{ role: 'user', content: 'x' }] });
    expect(applyRequestPolicy(request, { stripFields: ['user'] })).toBe(request); // nothing to strip: the same object
  });

  it.each([
    [{ allowedModels: 'a' }, /allowedModels must be an array/],
    [{ maxTokens: 0 }, /maxTokens must be a positive integer/],
    [{ maxN: 1.5 }, /maxN must be a positive integer/],
    [{ stripFields: ['messages'] }, /cannot strip `messages`/],
    [{ stripFields: 'user' }, /stripFields must be an array/],
  ])('a wrong policy is a ConfigError that says how to fix it: %j', (policy, message) => {
    let error: unknown;
    try {
      checkRequestPolicy(policy as unknown as RequestPolicyConfig);
    } catch (caught) {
      error = caught;
    }
    expect(isConfigError(error)).toBe(true);
    expect((error as Error).message).toMatch(message);
  });
});
