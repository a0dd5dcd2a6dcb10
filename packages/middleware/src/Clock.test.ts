import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, realClock } from './Clock.js';
import { createResilience } from './createResilience.js';

/*
 * Issue #22 item 6: a wait beyond the timer limit (2^31 - 1 ms) is waited in chunks, not fired at once (Node
 * fires a longer setTimeout immediately, with a TimeoutOverflowWarning; vitest's fake timers do the same).
 */

const DAY = 86_400_000;

afterEach(() => {
  vi.useRealTimers();
});

describe('realClock.sleep beyond the timer limit', () => {
  it('waits 30 days in chunks on fake timers: not done after 24.8 days, done after 30', async () => {
    vi.useFakeTimers();
    let done = false;
    void realClock.sleep(30 * DAY).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(30 * DAY - MAX_TIMER_MS - 2);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
  });

  it('waits an infinite sleep until its signal aborts, with the signal reason', async () => {
    vi.useFakeTimers();
    const stop = new AbortController();
    const sleeping = realClock.sleep(Number.POSITIVE_INFINITY, stop.signal);
    await vi.advanceTimersByTimeAsync(3 * MAX_TIMER_MS);
    stop.abort('enough');
    await expect(sleeping).rejects.toBe('enough');
  });

  it('does not fire at once on real timers, and no TimeoutOverflowWarning is emitted', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const stop = new AbortController();
    let done = false;
    const long = realClock.sleep(30 * DAY, stop.signal).then(() => {
      done = true;
    });
    // an overflowing timer fires after 1 ms: well before this 20 ms one (timers fire in order of expiry)
    await realClock.sleep(20);
    expect(done).toBe(false);
    stop.abort('test over');
    await long.catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });

  it('makes a call wait out a Retry-After of 30 days instead of retrying at once', async () => {
    vi.useFakeTimers();
    const r = createResilience({ retryAfterMaxMs: 40 * DAY, breakerConsecutiveFailures: 100 });
    let calls = 0;
    const result = r.execute(
      async () => {
        calls++;
        if (calls === 1)
          throw Object.assign(new Error('HTTP 429'), {
            status: 429,
            headers: { 'retry-after': String(30 * 86_400) },
          });
        return 'ok';
      },
      { endpoint: 'slow', idempotent: true },
    );
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS + 1000);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(6 * DAY);
    expect(calls).toBe(2);
    await expect(result).resolves.toBe('ok');
  });
});

describe('options that cannot be printed', () => {
  const message = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return error instanceof TypeError ? error.message : `not a TypeError: ${String(error)}`;
    }
    return 'did not throw';
  };
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  const throwingGetter = Object.defineProperty({}, 'now', {
    enumerable: true,
    get() {
      throw new Error('boom');
    },
  });
  const hostileProxy = new Proxy(
    {},
    {
      get() {
        throw new Error('trap');
      },
      getPrototypeOf() {
        throw new Error('trap');
      },
      ownKeys() {
        throw new Error('trap');
      },
    },
  );

  it('are refused by createResilience with the option name, whatever the value', () => {
    expect(message(() => createResilience({ retry: { backoff: { baseMs: 10n as never } } }))).toBe(
      "createResilience: option 'retry.backoff.baseMs' must be a number >= 0, got 10n (a bigint)",
    );
    expect(message(() => createResilience({ retry: { maxAttempts: Symbol('x') as never } }))).toBe(
      "createResilience: option 'retry.maxAttempts' must be an integer >= 1, got Symbol(x)",
    );
    expect(message(() => createResilience({ breaker: { breakMs: cycle as never } }))).toMatch(
      /^createResilience: option 'breaker.breakMs' must be a number > 0, got an object that cannot be printed$/,
    );
    expect(message(() => createResilience({ clock: throwingGetter as never }))).toBe(
      "createResilience: option 'clock' must be a value that can be read (reading it threw), got an object that cannot be printed",
    );
    expect(message(() => createResilience({ clock: hostileProxy as never }))).toMatch(
      /^createResilience: option 'clock' must be a value that can be read \(reading it threw\), got /,
    );
    const getter = Object.defineProperty({}, 'timeoutMs', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    expect(message(() => createResilience(getter))).toBe(
      "createResilience: option 'timeoutMs' cannot be read (its getter threw)",
    );
  });

  it('are refused by execute with the option name', async () => {
    const r = createResilience();
    const fails = async (options: object) => {
      try {
        await r.execute(async () => 'ok', options as never);
      } catch (error) {
        return (error as Error).message;
      }
      return 'did not throw';
    };
    expect(await fails({ timeoutMs: 10n })).toBe(
      "execute: option 'timeoutMs' must be a number > 0, got 10n (a bigint)",
    );
    expect(await fails({ maxAttempts: cycle })).toBe(
      "execute: option 'maxAttempts' must be an integer >= 1, got an object that cannot be printed",
    );
    expect(await fails({ attributes: throwingGetter })).toBe(
      "execute: option 'attributes' must be an object of strings, got an object that cannot be printed",
    );
  });
});
