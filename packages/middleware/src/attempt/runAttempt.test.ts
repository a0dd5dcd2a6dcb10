import { describe, expect, it } from 'vitest';
import type { AttemptContext } from '../call/CallOptions.js';
import { createFakeClock } from '../testing/createFakeClock.js';
import { DeadlineWatch } from './DeadlineWatch.js';
import { runAttempt } from './runAttempt.js';

describe('runAttempt', () => {
  const limit = (at: number) => ({ at, reason: () => new Error(`time up at ${at}`) });

  it('ends an attempt that ignores its signal at its time limit, and its signal, read later, is aborted', async () => {
    const clock = createFakeClock(0);
    let context: AttemptContext | undefined;
    const outcome = runAttempt(
      (c) => {
        context = c;
        return new Promise(() => {});
      },
      1,
      {},
      undefined,
      limit(500),
      new DeadlineWatch(clock),
    );
    await clock.advance(500);
    expect(await outcome).toEqual({ ok: false, error: new Error('time up at 500') });
    expect(context?.signal.aborted).toBe(true);
    expect(context?.signal.reason).toEqual(new Error('time up at 500'));
  });

  it('aborts a signal the function read when the time is up', async () => {
    const clock = createFakeClock(0);
    let signal: AbortSignal | undefined;
    const outcome = runAttempt(
      ({ signal: s }) => {
        signal = s;
        return new Promise((_, reject) => s.addEventListener('abort', () => reject(s.reason)));
      },
      1,
      {},
      undefined,
      limit(200),
      new DeadlineWatch(clock),
    );
    expect(signal?.aborted).toBe(false);
    await clock.advance(200);
    expect(await outcome).toMatchObject({ ok: false });
    expect(signal?.aborted).toBe(true);
  });

  it('returns a value or a synchronous throw as an outcome, and leaves no watch behind', async () => {
    const clock = createFakeClock(0);
    const watch = new DeadlineWatch(clock);
    expect(await runAttempt(() => 42, 1, {}, undefined, limit(100), watch)).toEqual({ ok: true, value: 42 });
    const boom = new Error('boom');
    expect(
      await runAttempt(
        () => {
          throw boom;
        },
        2,
        {},
        undefined,
        limit(100),
        watch,
      ),
    ).toEqual({ ok: false, error: boom });
    await clock.advance(100); // the timer fires and finds nothing to expire
    expect(clock.pending).toBe(0);
  });

  it("ends at once when the caller's signal aborts; one listener per signal, however many attempts", async () => {
    const clock = createFakeClock(0);
    const watch = new DeadlineWatch(clock);
    const controller = new AbortController();
    let added = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added++;
      return add(...args);
    }) as typeof add;
    for (let i = 0; i < 100; i++) {
      expect(await runAttempt(() => i, 1, {}, controller.signal, undefined, watch)).toEqual({
        ok: true,
        value: i,
      });
    }
    const hanging = [1, 2].map(() =>
      runAttempt(() => new Promise(() => {}), 1, {}, controller.signal, undefined, watch),
    );
    controller.abort(new Error('stop'));
    expect(await Promise.all(hanging)).toEqual([
      { ok: false, error: new Error('stop') },
      { ok: false, error: new Error('stop') },
    ]);
    expect(added).toBe(1);
  });
});
