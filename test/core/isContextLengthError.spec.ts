import { NetworkError, UpstreamHttpError, UpstreamStreamError } from '../../src/core/errors';
import { isContextLengthError } from '../../src/core/isContextLengthError';

describe('isContextLengthError', () => {
  it.each<[string, unknown]>([
    ['a provider code', new UpstreamHttpError(400, 'too long', { upstreamCode: 'context_length_exceeded' })],
    ['a provider type', new UpstreamStreamError('too long', { upstreamType: 'string_above_max_length' })],
    ["OpenAI's text", new UpstreamHttpError(400, "This model's maximum context length is 8192 tokens")],
    ["Moonshot's text", new UpstreamHttpError(400, 'Invalid request: exceeded model token limit: 8192')],
  ])('recognises %s', (_, error) => {
    expect(isContextLengthError(error)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['another provider error', new UpstreamHttpError(429, 'slow down', { upstreamType: 'rate_limit_error' })],
    ['a content-policy error', new UpstreamHttpError(400, 'Content Exists Risk')],
    ['not a provider error', new NetworkError('maximum context length')],
  ])('rejects %s', (_, error) => {
    expect(isContextLengthError(error)).toBe(false);
  });
});
