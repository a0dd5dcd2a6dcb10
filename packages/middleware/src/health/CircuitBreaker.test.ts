import { beforeEach, describe, expect, it } from 'vitest';
import { defaults } from '../options.js';
import { createFakeClock, type FakeClock } from '../testing/createFakeClock.js';
import { CircuitBreaker, type CircuitBreakerOptions, type Transition } from './CircuitBreaker.js';

describe('CircuitBreaker', () => {
  let clock: FakeClock;
  let transitions: Transition[];
  // a 10 s first break (doubling up to 300 s), to read the mechanics at a glance
  let waiting = true;
  const create = (
    options: Partial<CircuitBreakerOptions> = {},
    expectedRecoveryMs?: (now: number) => number,
  ) =>
    new CircuitBreaker(
      'weather',
      { 'mcp.resilience.server': 'weather' },
      { ...defaults, breakerBreakMs: 10_000, breakerMaxBreakMs: 300_000, breakerJitter: 0.1, ...options },
      clock,
      (t) => transitions.push(t),
      {
        expectedRecoveryMs: expectedRecoveryMs ?? (() => 0),
        waiters: () => (waiting ? 2 : 0),
      },
    );
  /** Failed attempts in a row (from different calls). */
  const fail = (breaker: CircuitBreaker, times: number) => {
    for (let i = 0; i < times; i++) breaker.onAttemptFailure(clock.now(), false, i);
  };
  /** Calls that failed for good. */
  const failCalls = (breaker: CircuitBreaker, times: number) => {
    for (let i = 0; i < times; i++) breaker.onCallFailure(clock.now(), i);
  };

  beforeEach(() => {
    clock = createFakeClock(1_000);
    transitions = [];
    waiting = true;
  });

  it('opens after the configured failures in a row, not before', () => {
    const breaker = create();
    fail(breaker, 4);
    expect(breaker.state).toBe('closed');
    fail(breaker, 1);
    expect(breaker.state).toBe('open');
    expect(transitions).toEqual([
      { from: 'closed', to: 'open', reason: 'consecutive_failures', time: 1_000, callId: 0 },
    ]);
  });

  it('a success resets the count of failures in a row', () => {
    const breaker = create();
    fail(breaker, 4);
    breaker.onSuccess(clock.now(), false);
    fail(breaker, 4);
    expect(breaker.state).toBe('closed');
  });

  it('opens on the failure rate once the window has the minimum of calls', () => {
    const breaker = create({ breakerConsecutiveFailures: 100 });
    for (let i = 0; i < 4; i++) {
      breaker.onSuccess(clock.now(), false);
      failCalls(breaker, 1);
    }
    breaker.onSuccess(clock.now(), false);
    expect(breaker.state).toBe('closed'); // 4 failures of 9 calls
    failCalls(breaker, 1); // 5 of 10: 50%
    expect(breaker.state).toBe('open');
    expect(transitions[0]?.reason).toBe('failure_rate');
  });

  it('forgets failures that slid out of the window', async () => {
    const breaker = create({ breakerConsecutiveFailures: 100 });
    failCalls(breaker, 9);
    await clock.advance(30_000);
    breaker.onSuccess(clock.now(), false);
    failCalls(breaker, 1);
    expect(breaker.state).toBe('closed');
  });

  it('neutral outcomes count neither way', () => {
    const breaker = create();
    fail(breaker, 4);
    breaker.onNeutral(false);
    fail(breaker, 1);
    expect(breaker.state).toBe('open');
  });

  it('rejects while open, telling how long until the next probe', async () => {
    const breaker = create({ breakerJitter: 0 });
    fail(breaker, 5);
    await clock.advance(4_000);
    expect(breaker.admit(clock.now())).toEqual({ admitted: false, retryAfterMs: 6_000 });
  });

  it('half-opens on its timer, outside any call', async () => {
    const breaker = create({ breakerJitter: 0 });
    fail(breaker, 5);
    await clock.advance(9_999);
    expect(breaker.state).toBe('open');
    await clock.advance(1);
    expect(breaker.state).toBe('half_open');
    expect(transitions[1]).toEqual({ from: 'open', to: 'half_open', reason: 'break_elapsed', time: 11_000 });
  });

  it('admits the configured number of probes while half-open and rejects the rest', async () => {
    const breaker = create({ breakerJitter: 0, breakerHalfOpenProbes: 2 });
    fail(breaker, 5);
    await clock.advance(10_000);
    const admissions = [1, 2, 3, 4].map(() => breaker.admit(clock.now()));
    expect(admissions.filter((a) => a.admitted)).toEqual([
      { admitted: true, probe: true },
      { admitted: true, probe: true },
    ]);
    expect(admissions[2]).toEqual({ admitted: false, retryAfterMs: defaults.breakerProbeTimeoutMs });
  });

  it('closes when the probes succeed', async () => {
    const breaker = create({ breakerJitter: 0 });
    fail(breaker, 5);
    await clock.advance(10_000);
    expect(breaker.admit(clock.now())).toEqual({ admitted: true, probe: true });
    breaker.onSuccess(clock.now(), true, 42);
    expect(breaker.state).toBe('closed');
    expect(transitions.at(-1)).toEqual({
      from: 'half_open',
      to: 'closed',
      reason: 'probe_succeeded',
      time: 11_000,
      callId: 42,
    });
  });

  it('re-opens on a failed probe for twice as long, up to the cap', async () => {
    const breaker = create({ breakerJitter: 0, breakerMaxBreakMs: 30_000 });
    fail(breaker, 5);
    const breaks: number[] = [];
    for (let i = 0; i < 4; i++) {
      const openedAt = clock.now();
      await clock.runAll(1);
      breaks.push(clock.now() - openedAt);
      breaker.admit(clock.now());
      breaker.onAttemptFailure(clock.now(), true);
    }
    expect(breaks).toEqual([10_000, 20_000, 30_000, 30_000]);
    expect(breaker.snapshot(clock.now()).reopenCount).toBe(4);
  });

  it('a neutral probe frees its slot without closing', async () => {
    const breaker = create({ breakerJitter: 0 });
    fail(breaker, 5);
    await clock.advance(10_000);
    breaker.admit(clock.now());
    breaker.onNeutral(true);
    expect(breaker.state).toBe('half_open');
    expect(breaker.admit(clock.now())).toEqual({ admitted: true, probe: true });
  });

  it('spreads the break with jitter', () => {
    clock.setRandom(1);
    const breaker = create({ breakerJitter: 0.1 });
    fail(breaker, 5);
    expect(breaker.snapshot(clock.now()).openUntil).toBe(1_000 + 11_000);
  });

  it("probes when the endpoint's past outages say this one ends, within the cap", async () => {
    const breaker = create({ breakerJitter: 0, breakerBreakMs: 500, breakerMaxBreakMs: 4_000 }, () => 2_500);
    fail(breaker, 5);
    expect(breaker.snapshot(clock.now()).openUntil).toBe(1_000 + 2_500);
    await clock.advance(2_500);
    expect(breaker.state).toBe('half_open');
  });

  it('a failed attempt of any call counts towards the failures in a row; a call failure does not', () => {
    const breaker = create({ breakerMinimumCalls: 1_000 });
    failCalls(breaker, 20);
    expect(breaker.state).toBe('closed');
    fail(breaker, 5);
    expect(breaker.state).toBe('open');
  });

  /** The breaks between probes while every probe fails. */
  const breaks = async (breaker: CircuitBreaker, n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const openedAt = clock.now();
      await clock.runAll(1);
      out.push(clock.now() - openedAt);
      breaker.admit(clock.now());
      breaker.onAttemptFailure(clock.now(), true);
    }
    return out;
  };

  it('while nobody waits, probes when the outage has aged by a quarter, up to breakerIdleMaxBreakMs', async () => {
    waiting = false;
    const breaker = create({
      breakerJitter: 0,
      breakerBreakMs: 1_000,
      breakerMaxBreakMs: 4_000,
      breakerIdleMaxBreakMs: 30_000,
    });
    fail(breaker, 5);
    const all = await breaks(breaker, 20);
    // the soon doubling up to 4 s until a quarter of the age is longer (at 19 s old), then ×1.25 per probe
    expect(all.slice(0, 9)).toEqual([1_000, 2_000, 4_000, 4_000, 4_000, 4_000, 4_750, 5_937.5, 7_421.875]);
    expect(all.slice(17)).toEqual([30_000, 30_000, 30_000]);
    expect(breaker.snapshot(clock.now()).outageSince).toBe(1_000);
  });

  it('while calls wait, probes soon: the doubling up to breakerMaxBreakMs, whatever the age', async () => {
    const breaker = create({ breakerJitter: 0, breakerBreakMs: 1_000, breakerMaxBreakMs: 4_000 });
    fail(breaker, 5);
    expect(await breaks(breaker, 8)).toEqual([1_000, 2_000, 4_000, 4_000, 4_000, 4_000, 4_000, 4_000]);
  });

  it('expedite: a call that starts waiting brings an idle probe forward to the soon schedule, if it can use it', async () => {
    waiting = false;
    const breaker = create({ breakerJitter: 0, breakerBreakMs: 1_000, breakerMaxBreakMs: 4_000 });
    fail(breaker, 5);
    await breaks(breaker, 12); // the outage is 72 s old at the re-open: the idle break is 18 s, the soon one 4 s
    const openedAt = clock.now();
    const idleBreak = (openedAt - (breaker.outageSince as number)) / 4;
    expect(idleBreak).toBeCloseTo(18_120, 0);
    expect(breaker.openUntil).toBe(openedAt + idleBreak);
    await clock.advance(3_000);
    expect(breaker.expedite(clock.now(), openedAt + 3_500, 2)).toBe(openedAt + idleBreak); // too late for this call
    expect(breaker.probeIfWaiting(clock.now(), 2)).toBe(openedAt + 4_000);
    expect(breaker.expedite(clock.now(), openedAt + 30_000, 2)).toBe(openedAt + 4_000);
    expect(breaker.openUntil).toBe(openedAt + 4_000);
    // one call alone would have had the probe a quarter of the age after the re-open, as nobody waiting
    expect(breaker.probeIfWaiting(clock.now(), 1)).toBe(openedAt + 4_000);
    await clock.advance(1_000);
    expect(breaker.state).toBe('half_open');
  });
});
