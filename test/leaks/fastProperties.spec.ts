/**
 * The objects a process holds for every open stream stay in V8's fast mode. An object literal with a getter is made a
 * dictionary-mode object (its properties a hash table, ~0.8 KB more), so these objects carry data properties kept
 * current instead: the stream log's producer (`resumability`, `stopReason`), its value list, a transport's exchange
 * (`hasBody`).
 */
import { setFlagsFromString } from 'node:v8';
import { createLogValues } from '../../src/store/createLogValues';
import { createMemoryStreamLog } from '../../src/store/createMemoryStreamLog';
import { anthropicExchange } from '../../src/serve/anthropicExchange';
import type { ChatExchange } from '../../src/serve/ChatExchange';
import { newStreamId } from '../helpers/streamLogContractSuite';

setFlagsFromString('--allow-natives-syntax');
// V8's own check, parsable only once the flag is set.
const hasFastProperties = new Function('object', 'return %HasFastProperties(object)') as (object: object) => boolean;

describe('per-stream objects in fast mode', () => {
  it('the check itself tells a dictionary-mode literal (one with a getter) from a fast one', () => {
    expect(hasFastProperties({ a: 1, b: () => 2 })).toBe(true);
    expect(hasFastProperties({ a: 1, get b() { return 2; } })).toBe(false);
  });

  it('a memory stream log producer, through its life, and its stopReason and resumability as properties', async () => {
    const log = createMemoryStreamLog();
    const producer = await log.open(newStreamId(), { ownerKeyHash: '', wire: 'sse' }, { abandonAfterMs: 60_000 });
    expect(hasFastProperties(producer)).toBe(true);
    expect(producer.resumability).toBe('local');
    expect(producer.stopReason).toBeUndefined();
    producer.append('{"a":1}');
    expect(await log.cancel(producer.id)).toBe(true);
    expect(producer.stopReason).toBe('cancelled');
    expect(producer.signal.aborted).toBe(true);
    expect(hasFastProperties(producer)).toBe(true);
    await producer.end({ kind: 'cancelled' });
    await log.close();
  });

  it('the log value list, with values sealed in a segment', () => {
    const values = createLogValues();
    for (let i = 0; i < 100; i++) values.push(`{"i":${i}}`);
    expect(hasFastProperties(values)).toBe(true);
  });

  it("Anthropic's exchange wrapper, with the transport's hasBody", () => {
    const exchange: ChatExchange<null> = {
      request: null,
      method: 'POST',
      url: '/v1/messages',
      header: (name) => (name === 'x-api-key' ? 'sk-a' : undefined),
      hasBody: true,
      readBody: () => Promise.resolve({}),
      defaultClientKey: () => 'anonymous',
    };
    const wrapped = anthropicExchange(exchange);
    expect(wrapped.hasBody).toBe(true);
    expect(hasFastProperties(wrapped)).toBe(true);
  });
});
