import { NetworkError, UpstreamHttpError, UpstreamStreamError } from '../../src/core/errors';
import { isContentPolicyError } from '../../src/core/isContentPolicyError';

describe('isContentPolicyError', () => {
  it.each<[string, unknown]>([
    ['a provider code', new UpstreamHttpError(400, 'refused', { upstreamCode: 'content_filter' })],
    ['a provider type', new UpstreamStreamError('refused', { upstreamType: 'content_policy_violation' })],
    ["DeepSeek's text", new UpstreamHttpError(400, 'Content Exists Risk')],
    ["Moonshot's text", new UpstreamHttpError(400, 'The request was rejected because it was considered high risk')],
  ])('recognises %s', (_, error) => {
    expect(isContentPolicyError(error)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['another provider error', new UpstreamHttpError(400, 'bad request', { upstreamCode: 'invalid_request_error' })],
    ['a context-length error', new UpstreamHttpError(400, "This model's maximum context length is 8192 tokens")],
    ['not a provider error', new NetworkError('Content Exists Risk')],
    ['a foreign error', new Error('content_filter')],
  ])('rejects %s', (_, error) => {
    expect(isContentPolicyError(error)).toBe(false);
  });
});
