import type { ChunkDelta } from '../../src/core/schemas/upstream';
import { isAnswerPiece } from '../../src/operators/isAnswerPiece';
import { routeExtensions } from '../../src/operators/routeExtensions';

describe('isAnswerPiece', () => {
  it.each<[string, ChunkDelta, boolean]>([
    ['text', { content: 'a' }, true],
    ['content parts', { content: [{ type: 'text', text: 'a' }] }, true],
    ['reasoning_content', { reasoning_content: 'r' }, true],
    ['reasoning (OpenRouter)', { reasoning: 'r' }, true],
    ['a tool-call fragment', { tool_calls: [{ index: 0, function: { arguments: '{' } }] }, true],
    ['a refusal', { refusal: 'no' }, true],
    ['a role alone', { role: 'assistant' }, false],
    ['an empty string', { role: 'assistant', content: '' }, false],
    ['an empty list of parts', { content: [] }, false],
    ['null content', { content: null }, false],
    ['no tool calls', { tool_calls: [] }, false],
    ['nothing', {}, false],
  ])('%s → %s', (_name, delta, expected) => {
    expect(isAnswerPiece(delta)).toBe(expected);
  });
});

describe('routeExtensions', () => {
  const base = { message: { role: 'assistant' as const, content: 'x' }, done: true as const };

  it('takes the route report fields that are present, and nothing else', () => {
    const attempts = [{ target: 't0', provider: 'deepseek', outcome: 'cut' as const }, { target: 't1', provider: 'deepseek', outcome: 'completed' as const }];
    expect(routeExtensions({ ...base, index: 3, provider: 'deepseek', target: 't1', attempts, usage_estimated: true })).toEqual({
      provider: 'deepseek',
      target: 't1',
      attempts,
      usage_estimated: true,
    });
  });

  it('is empty without a route, and leaves out a usage that is not an estimate', () => {
    expect(routeExtensions({ ...base, index: 0 })).toEqual({});
    expect(routeExtensions({ ...base, index: 0, usage_estimated: false })).toEqual({});
  });
});
