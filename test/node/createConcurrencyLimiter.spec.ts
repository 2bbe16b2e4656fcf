import type { IncomingMessage } from 'node:http';
import { isConfigError } from '../../src/core/errors';
import { clientKeyOf } from '../../src/node/clientKeyOf';
import { createConcurrencyLimiter } from '../../src/serve/createConcurrencyLimiter';

describe('createConcurrencyLimiter', () => {
  it('lets each client run maxPerClient requests at once, independently of the others', () => {
    const limiter = createConcurrencyLimiter({ maxPerClient: 2 });
    const a1 = limiter.tryAcquire('a');
    const a2 = limiter.tryAcquire('a');
    expect(a1).toBeDefined();
    expect(a2).toBeDefined();
    expect(limiter.tryAcquire('a')).toBeUndefined();
    expect(limiter.tryAcquire('b')).toBeDefined();
    expect(limiter.running('a')).toBe(2);
    a1?.();
    expect(limiter.running('a')).toBe(1);
    expect(limiter.tryAcquire('a')).toBeDefined();
  });

  it('releases once however often release is called, and forgets a client with nothing running', () => {
    const limiter = createConcurrencyLimiter({ maxPerClient: 1 });
    const release = limiter.tryAcquire('a') as () => void;
    expect(limiter.clients).toBe(1);
    release();
    release();
    expect(limiter.running('a')).toBe(0);
    expect(limiter.clients).toBe(0);
    const again = limiter.tryAcquire('a') as () => void;
    release(); // a stale release must not free the new holder's place
    expect(limiter.tryAcquire('a')).toBeUndefined();
    again();
  });

  it('has no limit with 0 or Infinity', () => {
    for (const maxPerClient of [0, Infinity]) {
      const limiter = createConcurrencyLimiter({ maxPerClient });
      for (let i = 0; i < 1000; i += 1) expect(limiter.tryAcquire('a')).toBeDefined();
    }
  });

  it.each([-1, 1.5, Number.NaN])('rejects maxPerClient %p with a ConfigError', (maxPerClient) => {
    let caught: unknown;
    try {
      createConcurrencyLimiter({ maxPerClient });
    } catch (error) {
      caught = error;
    }
    expect(isConfigError(caught)).toBe(true);
  });
});

describe('clientKeyOf', () => {
  const req = (authorization: string | undefined, remoteAddress = '10.0.0.7'): IncomingMessage =>
    ({ headers: authorization === undefined ? {} : { authorization }, socket: { remoteAddress } }) as unknown as IncomingMessage;

  it('is the hashed Bearer key when clients are told apart by key, never the key itself', () => {
    const key = clientKeyOf(req('Bearer gw-secret-key-123'), true);
    expect(key).toMatch(/^key:[A-Za-z0-9_-]{22}$/);
    expect(key).not.toContain('gw-secret');
    expect(clientKeyOf(req('Bearer gw-secret-key-123', '10.0.0.8'), true)).toBe(key);
    expect(clientKeyOf(req('Bearer other'), true)).not.toBe(key);
    // read as the key check reads the header (`bearerKey`): spaces around the one key allowed, two words are no key
    expect(clientKeyOf(req('bearer \tgw-secret-key-123 '), true)).toBe(key);
    expect(clientKeyOf(req('Bearer gw-secret-key-123 other'), true)).toBe('addr:10.0.0.7');
  });

  it('is the remote address otherwise', () => {
    expect(clientKeyOf(req('Bearer gw-secret-key-123'), false)).toBe('addr:10.0.0.7');
    expect(clientKeyOf(req(undefined), true)).toBe('addr:10.0.0.7');
  });
});
