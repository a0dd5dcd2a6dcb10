import { beforeEach, describe, expect, it } from 'vitest';
import { createResilience } from '../createResilience.js';
import { NAIVE_RETRIES_MS } from '../decide/naiveRetryAt.js';
import { isResilienceError } from '../errors/ResilienceError.js';
import type { ResilienceOptions } from '../options.js';
import { createMemoryRecorder, type MemoryRecorder } from '../record/createMemoryRecorder.js';
import { createFakeClock, type FakeClock } from '../testing/createFakeClock.js';
import { seededRandom } from '../testing/seededRandom.js';

const refused = () =>
  new TypeError('fetch failed', {
    cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
  });

const THINK_MS = 1_500;
const WINDOW_MS = 600_000;

/**
 * Issue #18: one agent, one call at a time (think time between calls), against a server that is dead from the
 * start; the probe spacing of an open breaker, through the whole pipeline, on a fake clock.
 */
describe('a lone agent against a dead server', () => {
  let clock: FakeClock;
  let recorder: MemoryRecorder;

  beforeEach(() => {
    clock = createFakeClock(0);
    recorder = createMemoryRecorder();
  });

  /** Runs the agent for the window; returns each request's time and the breaker's state when it was sent. */
  async function runAgent(options: ResilienceOptions = {}) {
    const r = createResilience({ clock, recorder, jitter: 'none', breakerJitter: 0, ...options });
    const sent: { readonly at: number; readonly state: string | undefined; readonly transitions: number }[] =
      [];
    const fn = async () => {
      sent.push({
        at: clock.now(),
        state: r.breakers()[0]?.state,
        transitions: recorder.ofType('breaker_transition').length,
      });
      throw refused();
    };
    let calls = 0;
    const agent = (async () => {
      while (clock.now() < WINDOW_MS) {
        calls++;
        await r.execute(fn, { endpoint: 'dead' }).catch(() => undefined);
        await clock.sleep(THINK_MS);
      }
    })();
    await clock.advance(WINDOW_MS + 120_000);
    await agent;
    await r.close();
    return { sent, calls };
  }

  it('sends the dead server only probes once the breaker has opened, one per break, at the exact spacing', async () => {
    const { sent } = await runAgent();
    const opened = recorder.ofType('breaker_transition').find((t) => t.to === 'open')!.time;
    // the first call's five requests (backoff 100 ms doubling) open the breaker
    expect(sent.slice(0, 5).map((s) => s.at)).toEqual([0, 100, 300, 700, 1_500]);
    expect(opened).toBe(1_500);
    // after that, every request is the one probe of a half-open breaker: no retry reaches it while it is open
    const after = sent.slice(5);
    expect(after.every((s) => s.state === 'half_open')).toBe(true);
    // and each half-open admits one request: between two requests, the breaker opened again
    expect(new Set(after.map((s) => s.transitions)).size).toBe(after.length);
    // while calls wait alone (no deadline: each call's bet ends once the time left is below the outage's age),
    // the first probe comes after the soon schedule (breakerBreakMs, 500 ms: the waiting call's own backoff does
    // not delay it); then, within the naive loop's first call of the outage (from its first failure at 0), each of
    // that loop's retries at 3, 7, 15 and 31 s is a probe, and between them a probe a quarter of the outage's age
    // (since the breaker opened) after the last one, or the soon schedule's 2 s when that is longer, where the
    // naive retry is further than one such wait (9, 11, 18.375, 22.59 s); past that call, a quarter of the age
    const gaps = after.map((s, i) => s.at - (i === 0 ? opened : after[i - 1]!.at));
    expect(after.slice(0, 11).map((s) => s.at)).toEqual([
      2_000, 3_000, 7_000, 9_000, 11_000, 15_000, 18_375, 22_593.75, 31_000, 38_375, 47_593.75,
    ]);
    // once no call waits (the outage is 46 s old), the idle probe: a quarter of the age after the last one, sent
    // with the first call after it (calls come every 1.5 s), up to breakerIdleMaxBreakMs, 30 s, from two minutes on
    expect(gaps.slice(11, 15)).toEqual([12_000, 15_000, 19_500, 24_000]);
    expect(gaps.slice(15).every((g) => g === 30_000)).toBe(true);
    expect(gaps.length).toBe(31);
  });

  it('sends the dead server under a third of what a naive loop of six attempts sends in the same ten minutes', async () => {
    const { sent } = await runAgent();
    // the naive loop: six attempts 1, 2, 4, 8, 16 s apart per call, a call every 31 s + think time
    let naive = 0;
    for (let t = 0; t < WINDOW_MS; t += 31_000 + THINK_MS) naive += 6;
    const inWindow = sent.filter((s) => s.at < WINDOW_MS).length;
    expect(naive).toBe(114);
    expect(inWindow).toBe(36); // 32% of the naive loop's (issue #18's target: 10%)
  });

  it('probes on demand only: while the agent does not call, nothing reaches the dead server; its next call is the probe', async () => {
    const r = createResilience({ clock, recorder, jitter: 'none', breakerJitter: 0 });
    const sent: { readonly at: number; readonly state: string | undefined }[] = [];
    const fn = async () => {
      sent.push({ at: clock.now(), state: r.breakers()[0]?.state });
      throw refused();
    };
    const PAUSE_MS = 600_000;
    let resumedAt = 0;
    const agent = (async () => {
      // two minutes of calls: the outage is past the idle cap's age (30 s), probes one per 30 s
      while (clock.now() < 120_000) {
        await r.execute(fn, { endpoint: 'dead' }).catch(() => undefined);
        await clock.sleep(THINK_MS);
      }
      // the agent stops calling for ten minutes (the model thinks, the user is away), then calls once
      await clock.sleep(PAUSE_MS);
      resumedAt = clock.now();
      await r.execute(fn, { endpoint: 'dead' }).catch(() => undefined);
    })();
    await clock.advance(120_000 + PAUSE_MS + 120_000);
    await agent;
    await r.close();
    const lastBeforePause = sent.filter((s) => s.at < resumedAt).at(-1)!;
    const resumed = sent.filter((s) => s.at >= resumedAt);
    // the breaker's timer half-opens it during the pause, but a half-open breaker sends nothing by itself
    expect(sent.filter((s) => s.at > lastBeforePause.at && s.at < resumedAt)).toEqual([]);
    // the call after the pause is the probe, sent at once when it arrives; it fails and re-opens the breaker,
    // so its retries meet the open breaker and fail fast: one request for ten minutes of silence
    expect(resumed).toEqual([{ at: resumedAt, state: 'half_open' }]);
  });

  /** One call without a deadline against the dead server, jittered by `seed`: its requests and how it ended. */
  async function loneCall(seed: number, options: ResilienceOptions = {}) {
    const random = seededRandom(seed);
    const r = createResilience({ clock: { ...clock, random }, recorder, ...options });
    const sent: number[] = [];
    const fn = async () => {
      sent.push(clock.now());
      throw refused();
    };
    const result = r.execute(fn, { endpoint: 'dead' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await clock.advance(120_000);
    const error = await result;
    await r.close();
    return { sent, error, end: recorder.ofType('call_finished')[0]!.time };
  }

  it("probes a lone call without a deadline at each of the naive loop's retries or earlier, never later", async () => {
    for (let seed = 1; seed <= 20; seed++) {
      clock = createFakeClock(0);
      recorder = createMemoryRecorder();
      const { sent, end } = await loneCall(seed);
      // the naive loop retries at +1, +3, +7, +15, +31 s: before each of those that falls while the call still
      // waits, a request went after the previous one (so a recovery then is seen no later than by the naive loop)
      let previous = 0;
      for (const point of NAIVE_RETRIES_MS.filter((p) => p <= end)) {
        expect(
          sent.some((t) => t > previous && t <= point),
          `seed ${seed}: a request in (${previous}, ${point}]`,
        ).toBe(true);
        previous = point;
      }
      // the call waits (to the 60 s default limit, while the time left is above the outage's age) and leaves at its
      // last useful probe: at least the naive retries at +1, +3, +7 and +15 s are covered
      expect(end).toBeGreaterThanOrEqual(15_000);
      expect(end).toBeLessThanOrEqual(31_000);
    }
  });

  it("sends a lone call's probes no more often than the quarter-age schedule alone (measured: fewer)", async () => {
    for (const seed of [1, 2, 3]) {
      clock = createFakeClock(0);
      recorder = createMemoryRecorder();
      const { sent } = await loneCall(seed, { jitter: 'none', breakerJitter: 0 });
      // five requests open the breaker; then 2, 3, 7, 9, 11, 15, 18.375, 22.59 s (and 31 s once the call has
      // left): eight probes in 24 s, where the quarter-age schedule alone sends nine (2, 3, 5, 7, 9, 11, 13.4, 16.3
      // and 20.1 s)
      expect(sent.filter((t) => t < 30_000)).toEqual([
        0, 100, 300, 700, 1_500, 2_000, 3_000, 7_000, 9_000, 11_000, 15_000, 18_375, 22_593.75,
      ]);
    }
  });

  it('fails a lone call that was not released with circuit_open and the time to the next probe', async () => {
    const { error, end } = await loneCall(7);
    if (!isResilienceError(error)) throw new Error(`expected a ResilienceError, got ${String(error)}`);
    expect(error.reason).toBe('circuit_open');
    expect(recorder.ofType('breaker_transition').filter((t) => t.to === 'open').length).toBeGreaterThan(1);
    // retryAfterMs is the time to the next probe: the breaker's timer half-opens it exactly then
    expect(error.retryAfterMs).toBeGreaterThan(0);
    const halfOpen = recorder
      .ofType('breaker_transition')
      .filter((t) => t.to === 'half_open' && t.time > end);
    expect(halfOpen[0]?.time).toBe(end + error.retryAfterMs!);
  });

  it('keeps the quarter-age schedule for a lone call with a deadline of its own (no naive-loop probes)', async () => {
    const r = createResilience({ clock, recorder, jitter: 'none', breakerJitter: 0 });
    const sent: number[] = [];
    const fn = async () => {
      sent.push(clock.now());
      throw refused();
    };
    const call = r.execute(fn, { endpoint: 'dead', timeoutMs: 60_000 }).catch((e: unknown) => e);
    await clock.advance(120_000);
    expect(await call).toMatchObject({ reason: 'circuit_open' });
    await r.close();
    // the first probe waits for the call's own backoff (1.6 s), then the soon schedule (1 s, then 2 s) until a
    // quarter of the outage's age (since the breaker opened at 1.5 s) is longer: none at the naive loop's 3, 7, 15
    // or 31 s
    expect(sent).toEqual([
      0, 100, 300, 700, 1_500, 3_100, 4_100, 6_100, 8_100, 10_100, 12_250, 14_937.5, 18_296.875, 22_496.09375,
      27_745.1171875, 34_306.396484375, 42_507.99560546875, 52_759.99450683594,
    ]);
  });
});
