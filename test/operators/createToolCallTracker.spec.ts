import { createToolCallTracker } from '../../src/operators/createToolCallTracker';
import type { ToolCallDelta } from '../../src/core/schemas/upstream';

/** Applies each chunk's fragments (choice 0 unless given) and returns, per fragment, the ordinal of its call. */
const ordinals = (chunks: ToolCallDelta[][], choiceIndex = 0) => {
  const tracker = createToolCallTracker();
  return chunks.map((fragments) =>
    fragments.map((f, p) => tracker.apply(choiceIndex, f, p, fragments.length).call.ordinal),
  );
};

describe('createToolCallTracker', () => {
  it('correlates by id first: a new id is a new call even at a reused index', () => {
    expect(
      ordinals([
        [{ index: 0, id: 'a' }],
        [{ index: 0, function: { arguments: '1' } }],
        [{ index: 0, id: 'b' }],
        [{ index: 0, function: { arguments: '2' } }],
        [{ id: 'a' }],
      ]),
    ).toEqual([[0], [0], [1], [1], [0]]);
  });

  it('then by index', () => {
    expect(
      ordinals([[{ index: 0, id: 'a' }], [{ index: 1, id: 'b' }], [{ index: 0 }], [{ index: 1 }], [{ index: 2 }]]),
    ).toEqual([[0], [1], [0], [1], [2]]);
  });

  it('gives an id to a call started without one at the same index', () => {
    const tracker = createToolCallTracker();
    const first = tracker.apply(0, { index: 0, function: { name: 'f' } }, 0, 1);
    const second = tracker.apply(0, { index: 0, id: 'late' }, 0, 1);
    expect(second.call).toBe(first.call);
    expect(second).toMatchObject({ started: false, changed: true });
    expect(first.call.id).toBe('late');
  });

  it('then by position in the array when it holds several index-less fragments', () => {
    expect(
      ordinals([[{ id: 'a' }], [{ id: 'b' }], [{ function: { arguments: 'A' } }, { function: { arguments: 'B' } }]]),
    ).toEqual([[0], [1], [0, 1]]);
  });

  it('then the latest call (Moonshot without index): a lone fragment continues the current call', () => {
    expect(
      ordinals([
        [{ function: { arguments: 'x' } }],
        [{ id: 'get_weather:0' }],
        [{ function: { arguments: '{' } }],
        [{ id: 'search:1' }],
        [{ function: { arguments: '{' } }],
      ]),
    ).toEqual([[0], [1], [1], [2], [2]]);
  });

  it('keeps choices apart', () => {
    const tracker = createToolCallTracker();
    tracker.apply(0, { index: 0, id: 'same', function: { name: 'f', arguments: 'a' } }, 0, 1);
    tracker.apply(1, { index: 0, id: 'same', function: { name: 'g', arguments: 'b' } }, 0, 1);
    const zero = tracker.apply(0, { index: 0, function: { arguments: 'c' } }, 0, 1).call;
    const one = tracker.apply(1, { index: 0, function: { arguments: 'd' } }, 0, 1).call;
    expect([zero.choiceIndex, zero.name, zero.arguments]).toEqual([0, 'f', 'ac']);
    expect([one.choiceIndex, one.name, one.arguments]).toEqual([1, 'g', 'bd']);
  });

  it('reports changes: empty fragments and repeated names/types change nothing', () => {
    const tracker = createToolCallTracker();
    expect(
      tracker.apply(0, { index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '' } }, 0, 1),
    ).toMatchObject({ started: true, changed: true });
    expect(
      tracker.apply(0, { index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '' } }, 0, 1),
    ).toMatchObject({ started: false, changed: false });
    expect(tracker.apply(0, { index: 0, function: { arguments: '{}' } }, 0, 1)).toMatchObject({
      started: false,
      changed: true,
    });
    expect(tracker.apply(0, { index: 0, function: { name: 'g' } }, 0, 1).call.name).toBe('g');
  });
});
