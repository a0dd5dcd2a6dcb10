import { describe, expect, it } from 'vitest';
import { createResilience } from '../createResilience.js';
import { createMemoryRecorder } from '../record/createMemoryRecorder.js';
import { createFakeClock } from '../testing/createFakeClock.js';

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });

/**
 * Issue #18: a lone call without a deadline retries after the endpoint's usual recovery (the adaptive floor), which
 * is learned from streaks that end at a retry's success and so runs a little past a blip's end; when a naive loop's
 * retry (+1, +3, +7, +15, +31 s from the call's start) comes at most 0.5 s before it, the retry goes then. Fake clock.
 */
interface Run {
  readonly timeoutMs?: number;
  readonly firstEnd?: number;
  readonly maxAttempts?: number;
}

describe('a lone call in a blip, after the endpoint learnt how long its blips last', () => {
  /**
   * Two blips: [0, `firstEnd`) and [10 s, 12 s); one call at 0 (its streak teaches the usual recovery), one at
   * `secondAt`; each request's time, by call.
   */
  async function run(secondAt: number, { timeoutMs, firstEnd = 2_500, maxAttempts = 6 }: Run = {}) {
    const clock = createFakeClock(0);
    const r = createResilience({
      clock,
      recorder: createMemoryRecorder(),
      jitter: 'none',
      breakerJitter: 0,
      maxAttempts,
      breakerConsecutiveFailures: 50, // the retries alone, without the breaker's gate
    });
    const sent: number[] = [];
    const fn = async () => {
      const now = clock.now();
      sent.push(now);
      if (now < firstEnd || (now >= 10_000 && now < 12_000)) throw refused();
      return 'ok';
    };
    const opts = { endpoint: 'blip', ...(timeoutMs === undefined ? {} : { timeoutMs }) };
    const first = r.execute(fn, opts);
    await clock.advance(9_000);
    await expect(first).resolves.toBe('ok');
    const learnt = sent.length;
    await clock.advance(secondAt - clock.now());
    const second = r.execute(fn, opts);
    await clock.advance(20_000);
    await expect(second).resolves.toBe('ok');
    await r.close();
    return { first: sent.slice(0, learnt), second: sent.slice(learnt) };
  }

  it("retries at the naive loop's +3 s, not at the usual recovery 100 ms later", async () => {
    const { first, second } = await run(10_200);
    // the first blip: backoff 100 ms doubling until the 6th attempt succeeds; the streak lasted 3.1 s
    expect(first).toEqual([0, 100, 300, 700, 1_500, 3_100]);
    // the usual recovery says 10.2 + 3.1 = 13.3 s; the naive loop retries at 11.2 and 13.2 s: 13.2 s is within 0.5 s
    expect(second).toEqual([10_200, 13_200]);
  });

  it("keeps the usual recovery when the naive loop's last retry before it is more than 0.5 s earlier", async () => {
    const { first, second } = await run(10_200, { firstEnd: 5_000, maxAttempts: 7 });
    expect(first).toEqual([0, 100, 300, 700, 1_500, 3_100, 6_300]); // a 6.3 s streak
    // the usual recovery at 10.2 + 6.3 = 16.5 s; the naive loop's last retry before it, 13.2 s, is 3.3 s earlier
    expect(second).toEqual([10_200, 16_500]);
  });

  it('a call with a deadline keeps the usual recovery', async () => {
    expect((await run(10_200, { timeoutMs: 20_000 })).second).toEqual([10_200, 13_300]);
  });
});
