import fc from 'fast-check';
import { createChatStreamIndex } from '../../src/serve/createChatStreamIndex';

describe('createChatStreamIndex: useChat chat ids → their latest resumable answer, bounded', () => {
  it('answers the latest stream of a client\'s chat, and nothing for another client or an unknown chat', () => {
    const index = createChatStreamIndex();
    index.set('a', 'chat', 's1');
    index.set('a', 'chat', 's2');
    expect(index.get('a', 'chat')).toBe('s2');
    expect(index.get('b', 'chat')).toBeUndefined();
    expect(index.get('a', 'other')).toBeUndefined();
  });

  it('forgets a chat when its answer ends, unless a newer answer of that chat took its place', () => {
    const index = createChatStreamIndex();
    index.set('a', 'chat', 's1');
    index.set('a', 'chat', 's2');
    index.delete('a', 'chat', 's1');
    expect(index.get('a', 'chat')).toBe('s2');
    index.delete('a', 'chat', 's2');
    expect(index.get('a', 'chat')).toBeUndefined();
  });

  it('forgets an entry after ttlMs', () => {
    let now = 1000;
    const index = createChatStreamIndex({ ttlMs: 50, now: () => now });
    index.set('a', 'chat', 's1');
    now += 49;
    expect(index.get('a', 'chat')).toBe('s1');
    now += 1;
    expect(index.get('a', 'chat')).toBeUndefined();
  });

  it('pushes out a client\'s oldest chat past maxChatsPerClient, and the oldest of all past maxChats', () => {
    const index = createChatStreamIndex({ maxChats: 3, maxChatsPerClient: 2 });
    index.set('a', '1', 's1');
    index.set('a', '2', 's2');
    index.set('a', '3', 's3');
    expect([index.get('a', '1'), index.get('a', '2'), index.get('a', '3')]).toEqual([undefined, 's2', 's3']);
    index.set('b', '1', 't1');
    index.set('c', '1', 'u1');
    expect([index.get('a', '2'), index.get('a', '3'), index.get('b', '1'), index.get('c', '1')]).toEqual([undefined, 's3', 't1', 'u1']);
  });

  it('keeps no empty or over-long chat id (128 characters at most)', () => {
    const index = createChatStreamIndex();
    index.set('a', '', 's1');
    index.set('a', 'x'.repeat(129), 's2');
    index.set('a', 'y'.repeat(128), 's3');
    expect([index.get('a', ''), index.get('a', 'x'.repeat(129)), index.get('a', 'y'.repeat(128))]).toEqual([undefined, undefined, 's3']);
  });

  it('property: whatever clients and chat ids arrive, it holds at most maxChats in all and maxChatsPerClient each, and the latest set is found', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.string({ maxLength: 4 })), { maxLength: 200 }), (sets) => {
        const index = createChatStreamIndex({ maxChats: 6, maxChatsPerClient: 3 });
        sets.forEach(([client, chat], i) => {
          index.set(client, chat, `s${i}`);
          if (chat !== '') expect(index.get(client, chat)).toBe(`s${i}`);
        });
        const kept = new Map<string, number>();
        for (const [client, chat] of new Map(sets.map(([client, chat]) => [`${client}\n${chat}`, [client, chat] as const])).values()) {
          if (index.get(client, chat) !== undefined) kept.set(client, (kept.get(client) ?? 0) + 1);
        }
        expect([...kept.values()].reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(6);
        for (const count of kept.values()) expect(count).toBeLessThanOrEqual(3);
      }),
    );
  });
});
