import { seededRandom } from '@mcp-resilience/middleware/testing';
import FakeTimers from '@sinonjs/fake-timers';

/** Virtual time starts here (a weekday morning), so that no library sees a suspicious `Date.now() === 0`. */
export const EPOCH = Date.UTC(2026, 0, 15, 9, 0, 0);

const realSetImmediate = globalThis.setImmediate;
/** Lets every pending promise callback run (setImmediate is not faked). */
const settle = () => new Promise<void>((resolve) => realSetImmediate(resolve));

export interface VirtualRun<T> {
  readonly value: T;
  /** Timers fired: a measure of the simulated work. */
  readonly timersFired: number;
}

/**
 * Runs `body` on virtual time: `setTimeout`, `setInterval`, `Date` and `performance` are faked with
 * @sinonjs/fake-timers, and `Math.random` is a seeded PRNG (cockatiel's and LangGraph-style jitter become
 * reproducible). The loop fires one timer at a time and lets every promise settle in between, as Node's event
 * loop does, so libraries that read the global timers (p-retry, opossum, cockatiel, the middleware's real clock)
 * run unchanged, thousands of virtual seconds per real second.
 */
export async function onVirtualTime<T>(
  seed: number,
  maxVirtualMs: number,
  body: () => Promise<T>,
): Promise<VirtualRun<T>> {
  const clock = FakeTimers.install({
    now: EPOCH,
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
  });
  const realRandom = Math.random;
  Math.random = seededRandom(seed);
  let done = false;
  let failed = false;
  let value: T | undefined;
  let error: unknown;
  let timersFired = 0;
  try {
    body().then(
      (v) => {
        done = true;
        value = v;
      },
      (e: unknown) => {
        done = true;
        failed = true;
        error = e;
      },
    );
    for (;;) {
      await settle();
      if (done) break;
      if (clock.countTimers() === 0)
        throw new Error('virtual time: the workload is stuck with no timer left');
      if (clock.now - EPOCH > maxVirtualMs)
        throw new Error(`virtual time: still running after ${maxVirtualMs} ms`);
      clock.next();
      timersFired++;
    }
  } finally {
    clock.uninstall();
    Math.random = realRandom;
  }
  if (failed) throw error;
  return { value: value as T, timersFired };
}
