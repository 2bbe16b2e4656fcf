import { createConnectionSlots } from '../../src/client/createConnectionSlots';

jest.useFakeTimers();

describe('createConnectionSlots', () => {
  it('gives free slots at once, then queues first come first served, and times a wait out', () => {
    const slots = createConnectionSlots(1, 100);
    const events: string[] = [];
    let release1: () => void = () => undefined;
    slots.take((release) => ((release1 = release), events.push('1 in')), () => events.push('1 timeout'));
    slots.take(() => events.push('2 in'), () => events.push('2 timeout'));
    slots.take(() => events.push('3 in'), () => events.push('3 timeout'));
    expect([slots.inUse, slots.waiting]).toEqual([1, 2]);
    jest.advanceTimersByTime(50);
    release1();
    expect(events).toEqual(['1 in', '2 in']);
    jest.advanceTimersByTime(60); // 3 has waited 110 ms
    expect(events).toEqual(['1 in', '2 in', '3 timeout']);
    expect([slots.inUse, slots.waiting]).toEqual([1, 0]);
  });

  it('a cancelled taker leaves the queue; release is idempotent', () => {
    const slots = createConnectionSlots(1, Infinity);
    const got: string[] = [];
    let release: () => void = () => undefined;
    slots.take((r) => (release = r), () => got.push('timeout'));
    const cancel = slots.take(() => got.push('cancelled one in'), () => got.push('timeout'));
    slots.take(() => got.push('next in'), () => got.push('timeout'));
    cancel();
    release();
    release();
    jest.advanceTimersByTime(1_000_000);
    expect(got).toEqual(['next in']);
    expect(slots.inUse).toBe(1);
  });

  it('never waits with 0', () => {
    const slots = createConnectionSlots(1, 0);
    const got: string[] = [];
    slots.take(() => got.push('in'), () => got.push('timeout'));
    slots.take(() => got.push('in'), () => got.push('timeout'));
    expect(got).toEqual(['in', 'timeout']);
  });
});
