import { describe, expect, it } from 'vitest';
import { Respawner } from './Respawner.js';

/** A respawner on a fake clock: `sleep` records each wait and lets it pass at once. */
function harness(outcomes: boolean[], options: { stableMs?: number } = {}) {
  let now = 0;
  let up = false;
  const waits: number[] = [];
  const attempts: number[] = [];
  const respawner = new Respawner(
    async () => {
      attempts.push(now);
      if (!(outcomes.shift() ?? true)) throw new Error('exited at once');
      up = true;
    },
    () => up,
    {
      baseMs: 100,
      maxMs: 1_000,
      ...options,
      now: () => now,
      sleep: async (ms) => {
        waits.push(ms);
        now += ms;
      },
    },
  );
  const settled = async () => {
    while ((respawner as unknown as { running?: Promise<void> }).running) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const crash = async () => {
    up = false;
    respawner.lost();
    await settled();
  };
  return {
    respawner,
    waits,
    attempts,
    crash,
    settled,
    advance: (ms: number) => (now += ms),
    isUp: () => up,
    connectElsewhere: () => (up = true),
  };
}

describe('Respawner', () => {
  it('restarts after a crash without a request, waiting longer after each failed start, up to maxMs', async () => {
    const h = harness([false, false, false, false, false, true]);
    await h.crash();
    expect(h.waits).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect(h.attempts).toHaveLength(6);
    expect(h.isUp()).toBe(true);
  });

  it('keeps the longer wait for a crash loop, and starts over once a connection stayed up for stableMs', async () => {
    const h = harness([], { stableMs: 5_000 });
    await h.crash();
    await h.crash();
    await h.crash();
    expect(h.waits).toEqual([100, 200, 400]);
    h.advance(5_000);
    await h.crash();
    expect(h.waits.at(-1)).toBe(100);
  });

  it('does not connect when a request reconnected meanwhile, nor after stop', async () => {
    const h = harness([]);
    h.respawner.lost();
    h.connectElsewhere(); // a request's own reconnection, during the wait
    await h.settled();
    expect(h.waits).toEqual([100]);
    expect(h.attempts).toEqual([]);
    const stopped = harness([]);
    stopped.respawner.stop();
    await stopped.crash();
    expect(stopped.attempts).toEqual([]);
  });
});
