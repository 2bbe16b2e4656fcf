import { addUsage } from '../../src/core/addUsage';
import type { Usage } from '../../src/core/schemas/upstream';

const usage = (prompt: number, completion: number, extra: Record<string, unknown> = {}): Usage =>
  ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, ...extra }) as Usage;

describe('addUsage', () => {
  it('returns the other side when one is undefined, and undefined when both are', () => {
    const a = usage(1, 2);
    expect(addUsage(a, undefined)).toBe(a);
    expect(addUsage(undefined, a)).toBe(a);
    expect(addUsage(undefined, undefined)).toBeUndefined();
  });

  it('sums field by field, nested breakdowns too, without touching its arguments', () => {
    const a = usage(10, 5, { completion_tokens_details: { reasoning_tokens: 3 } });
    const b = usage(20, 7, { completion_tokens_details: { reasoning_tokens: 4 } });
    expect(addUsage(a, b)).toEqual(usage(30, 12, { completion_tokens_details: { reasoning_tokens: 7 } }));
    expect(a).toEqual(usage(10, 5, { completion_tokens_details: { reasoning_tokens: 3 } }));
  });

  it('keeps a field only one side has, fills a null one, and keeps the first of two that are not numbers', () => {
    const a = usage(1, 1, { prompt_cache_hit_tokens: 4, cached: null, note: 'a' });
    const b = usage(1, 1, { prompt_tokens_details: { cached_tokens: 2 }, cached: 6, note: 'b' });
    expect(addUsage(a, b)).toEqual(
      usage(2, 2, { prompt_cache_hit_tokens: 4, prompt_tokens_details: { cached_tokens: 2 }, cached: 6, note: 'a' }),
    );
  });
});
