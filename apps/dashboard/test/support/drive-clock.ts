import type { FakeClock } from '@mcp-resilience/middleware/testing';

/**
 * Runs `work` on a virtual clock, moving it 1 ms per turn until `work` settles: its times then follow the work's
 * own steps (its sleeps, its turns), not how busy the machine is.
 */
export async function driveClock<T>(clock: FakeClock, work: Promise<T>): Promise<T> {
  let done = false;
  const settled = work.finally(() => {
    done = true;
  });
  while (!done) await clock.advance(1);
  return settled;
}
