import fc from 'fast-check';
import { isChatfluxErrorCode } from '../../src/core/isChatfluxErrorCode';
import { ChatfluxError, NetworkError, TimeoutError, UpstreamHttpError, UpstreamStreamError } from '../../src/core/errors';
import { errorType } from '../../src/telemetry/errorType';
import { knownModels } from '../../src/telemetry/knownModels';

describe('knownModels (the model names a metric may carry)', () => {
  it('knows the configured names and the listed ones, and nothing else', () => {
    const known = knownModels(['deepseek-reasoner'], ['deepseek-chat', undefined]);
    expect(known('deepseek-chat')).toBe(true);
    expect(known('deepseek-reasoner')).toBe(true);
    expect(known('deepseek-chat ')).toBe(false);
    expect(known('gpt-4o-2024-08-06')).toBe(false);
  });

  it('by default knows only the configured names; without any, none', () => {
    expect(knownModels(undefined, ['m'])('m')).toBe(true);
    expect(knownModels(undefined, ['m'])('n')).toBe(false);
    expect(knownModels(undefined)('m')).toBe(false);
    expect(knownModels(undefined, [''])('')).toBe(false);
  });

  it('takes a predicate, besides the configured names', () => {
    const known = knownModels((name) => name.startsWith('kimi-'), ['moonshot-v1-8k']);
    expect(known('kimi-k2')).toBe(true);
    expect(known('moonshot-v1-8k')).toBe(true);
    expect(known('gpt-4o')).toBe(false);
  });

  it('a random name is never known unless configured or listed (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.uniqueArray(fc.string(), { maxLength: 5 }), (name, listed) => {
        expect(knownModels(listed, ['deepseek-chat'])(name)).toBe(name === 'deepseek-chat' || listed.includes(name));
      }),
    );
  });

  it('refuses a `models` that is neither a list of names nor a function, saying how to write it', () => {
    expect(() => knownModels('deepseek-chat' as unknown as string[])).toThrow(/list of model names \(e\.g\. \['deepseek-chat'\]\) or a predicate/);
    expect(() => knownModels([1] as unknown as string[])).toThrow(/list of model names/);
  });
});

describe('errorType (error.type from a bounded set)', () => {
  it("is a chatflux error's code", () => {
    expect(errorType(new UpstreamHttpError(500, 'refused', { upstreamCode: 'whatever-the-provider-says', upstreamType: 'x' }))).toBe('upstream_http');
    expect(errorType(new UpstreamStreamError('failed', { upstreamCode: 'random-123' }))).toBe('upstream_error');
    expect(errorType(new TimeoutError('idle', 10))).toBe('timeout');
    expect(errorType(new NetworkError('reset'))).toBe('network');
  });

  it('is _OTHER for any other code or class name, whatever it says', () => {
    expect(errorType(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe('_OTHER');
    expect(errorType(new TypeError('x'))).toBe('_OTHER');
    expect(errorType({ code: 'rate_limit_reached_error' })).toBe('_OTHER');
    expect(errorType(new ChatfluxError('not-a-code' as never, 'x'))).toBe('_OTHER');
    expect(errorType(undefined)).toBe('_OTHER');
    fc.assert(
      fc.property(fc.string(), (code) => {
        expect(errorType({ code })).toBe(isChatfluxErrorCode(code) ? code : '_OTHER');
      }),
    );
  });

  it("isChatfluxErrorCode knows the union's codes and no inherited name", () => {
    expect(isChatfluxErrorCode('upstream_http')).toBe(true);
    expect(isChatfluxErrorCode('toString')).toBe(false);
    expect(isChatfluxErrorCode('__proto__')).toBe(false);
    expect(isChatfluxErrorCode(1)).toBe(false);
  });
});
