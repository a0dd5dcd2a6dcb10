import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../testing/createFakeClock.js';
import { GO } from './GateVerdict.js';
import { WaitQueue } from './WaitQueue.js';

const timeout = () => ({ kind: 'timeout', retryAfterMs: 0 }) as const;

describe('WaitQueue', () => {
  it('keeps waiters oldest first and settles each once, on its timer', async () => {
    const clock = createFakeClock(0);
    const q = new WaitQueue(clock);
    const a = q.add(1_000, true, false, undefined, 1_000, timeout);
    const b = q.add(2_000, false, false, undefined, 500, () => GO);
    expect(q.length).toBe(2);
    expect(q.first()?.limitAt).toBe(1_000);
    await clock.advance(500);
    expect(await b).toEqual(GO);
    expect(q.length).toBe(1);
    await clock.advance(500);
    expect(await a).toEqual({ kind: 'timeout', retryAfterMs: 0 });
    expect(q.length).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it('prefers a waiter not sent yet as the probe', () => {
    const q = new WaitQueue(createFakeClock(0));
    void q.add(1_000, false, false, undefined, 1_000, timeout);
    void q.add(2_000, true, false, undefined, 2_000, timeout);
    expect(q.firstFresh()?.limitAt).toBe(2_000);
    expect(q.first()?.limitAt).toBe(1_000);
  });

  it("ends a wait at once when the caller's signal aborts, and removes its listener whatever settles it", async () => {
    const clock = createFakeClock(0);
    const q = new WaitQueue(clock);
    const controller = new AbortController();
    const aborted = q.add(1_000, true, false, controller.signal, 1_000, timeout);
    controller.abort('stop');
    expect(await aborted).toEqual({ kind: 'aborted', reason: 'stop' });
    const kept = new AbortController();
    const released = q.add(1_000, true, false, kept.signal, 1_000, timeout);
    q.first()?.settle(GO);
    expect(await released).toEqual(GO);
    expect(getEventListeners(kept.signal, 'abort')).toHaveLength(0);
    expect(q.length).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it('moves a waiter to another queue with a new timer', async () => {
    const clock = createFakeClock(0);
    const held = new WaitQueue(clock);
    const queue = new WaitQueue(clock);
    const waiting = held.add(5_000, false, false, undefined, 100, () => GO);
    queue.adopt(held.first()!, 5_000, timeout);
    expect([held.length, queue.length]).toEqual([0, 1]);
    await clock.advance(100); // the hold's timer no longer fires
    expect(queue.length).toBe(1);
    await clock.advance(4_900);
    expect(await waiting).toEqual({ kind: 'timeout', retryAfterMs: 0 });
  });
});
