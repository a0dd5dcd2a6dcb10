import { beforeEach, describe, expect, it } from 'vitest';
import { createResilience } from '../createResilience.js';
import type { ResilienceOptions } from '../options.js';
import { createMemoryRecorder, type MemoryRecorder } from '../record/createMemoryRecorder.js';
import { createFakeClock, type FakeClock } from '../testing/createFakeClock.js';

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
    // a probe comes after the soon schedule (500 ms doubling per failed probe, up to 2 s) or half the outage's age
    // since the breaker opened, whichever is later; the first waits for the call's own backoff (1.6 s)
    const gaps = after.map((s, i) => s.at - (i === 0 ? opened : after[i - 1]!.at));
    expect(gaps.slice(0, 9)).toEqual([
      1_600, 1_000, 2_000, 2_300, 3_450, 5_175, 7_762.5, 11_643.75, 17_465.625,
    ]);
    // from then on (the outage over a minute old) one probe per breakerIdleMaxBreakMs, 30 s, whether a call
    // waits for it or not
    expect(gaps.slice(9).every((g) => g === 30_000)).toBe(true);
    expect(gaps.length).toBe(27);
  });

  it('sends the dead server under a third of what a naive loop of six attempts sends in the same ten minutes', async () => {
    const { sent } = await runAgent();
    // the naive loop: six attempts 1, 2, 4, 8, 16 s apart per call, a call every 31 s + think time
    let naive = 0;
    for (let t = 0; t < WINDOW_MS; t += 31_000 + THINK_MS) naive += 6;
    const inWindow = sent.filter((s) => s.at < WINDOW_MS).length;
    expect(naive).toBe(114);
    expect(inWindow).toBe(32); // 28% of the naive loop's (issue #18's target: 10%)
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
});
