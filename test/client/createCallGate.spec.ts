import { NEVER, Subject, firstValueFrom, of } from 'rxjs';
import { isConfigError } from '../../src/core/errors';
import { createCallGate } from '../../src/client/createCallGate';
import { promptBound } from '../helpers/promptBound';

describe('createCallGate', () => {
  it('passes a call through, and refuses new calls once closed with the given message', async () => {
    const gate = createCallGate('closed; create a new one');
    await expect(firstValueFrom(gate.track(() => of(1)))).resolves.toBe(1);
    gate.close();
    const error: unknown = await firstValueFrom(gate.track(() => of(1))).catch((e: unknown) => e);
    expect(isConfigError(error)).toBe(true);
    expect((error as Error).message).toBe('closed; create a new one');
  });

  it('drains at once when no call is in flight, or with no grace', async () => {
    const gate = createCallGate('closed');
    const started = Date.now();
    await gate.drain(5_000);
    const held = gate.track(() => NEVER).subscribe();
    await gate.drain(0);
    expect(Date.now() - started).toBeLessThan(promptBound(1_000));
    held.unsubscribe();
  });

  it('waits for the calls in flight (from subscription to end), at most graceMs', async () => {
    const gate = createCallGate('closed');
    const upstream = new Subject<number>();
    gate.track(() => upstream).subscribe();
    let drained = false;
    const draining = gate.drain(5_000).then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(drained).toBe(false); // the call is still in flight
    upstream.complete();
    await draining;
    expect(drained).toBe(true);

    const stuck = gate.track(() => NEVER).subscribe();
    const started = Date.now();
    await gate.drain(50); // the grace runs out
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    expect(Date.now() - started).toBeLessThan(promptBound(2_000));
    stuck.unsubscribe();
  });
});
