import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../testing/createFakeClock.js';
import { DeadlineWatch } from './DeadlineWatch.js';

describe('DeadlineWatch', () => {
  it('watches any number of attempts on one timer, expiring each at its time', async () => {
    const clock = createFakeClock(0);
    const watch = new DeadlineWatch(clock);
    const expired: Array<[number, number]> = [];
    for (const at of [300, 100, 200, 100]) watch.watch({ at, expire: () => expired.push([at, clock.now()]) });
    expect(clock.pending).toBe(1); // re-armed once for the earlier 100, the old timer stopped
    await clock.advance(1_000);
    expect(expired).toEqual([
      [100, 100],
      [100, 100],
      [200, 200],
      [300, 300],
    ]);
    expect(clock.pending).toBe(0);
  });

  it('never expires an attempt that was unwatched', async () => {
    const clock = createFakeClock(0);
    const watch = new DeadlineWatch(clock);
    const expired: number[] = [];
    const first = { at: 100, expire: () => expired.push(1) };
    watch.watch(first);
    watch.watch({ at: 150, expire: () => expired.push(2) });
    watch.unwatch(first);
    await clock.advance(1_000);
    expect(expired).toEqual([2]);
  });
});
