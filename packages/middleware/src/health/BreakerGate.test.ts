import { getEventListeners } from 'node:events';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createResilience } from '../createResilience.js';
import type { ResilienceError } from '../errors/ResilienceError.js';
import type { ResilienceOptions } from '../options.js';
import { createMemoryRecorder, type MemoryRecorder } from '../record/createMemoryRecorder.js';
import { createFakeClock, type FakeClock } from '../testing/createFakeClock.js';

const unavailable = () => Object.assign(new Error('Service Unavailable'), { status: 503 });

/** An endpoint whose answers the test releases one round at a time; up or down when it answers. */
function server(clock: FakeClock) {
  let up = false;
  const sent: number[] = [];
  let pending: Array<() => void> = [];
  const fn = () =>
    new Promise<string>((resolve, reject) => {
      sent.push(clock.now());
      pending.push(() => (up ? resolve('ok') : reject(unavailable())));
    });
  return {
    fn,
    sent,
    get inFlight() {
      return pending.length;
    },
    setUp(value: boolean) {
      up = value;
    },
    /** Answers every request in flight, and lets the calls go on. */
    async answer() {
      const now = pending;
      pending = [];
      for (const answer of now) answer();
      await clock.advance(0);
    },
  };
}

describe('the breaker gate', () => {
  let clock: FakeClock;
  let recorder: MemoryRecorder;
  const create = (options: ResilienceOptions = {}) =>
    createResilience({
      clock,
      recorder,
      jitter: 'none',
      breakerJitter: 0,
      breakerBreakMs: 1_000,
      breakerMaxBreakMs: 4_000,
      adaptiveBackoff: false,
      ...options,
    });
  /** Opens the breaker of endpoint 'e' at the current time: five calls of one failing attempt each. */
  const open = async (r: ReturnType<typeof create>) => {
    for (let i = 0; i < 5; i++) {
      await r
        .execute(
          async () => {
            throw unavailable();
          },
          { endpoint: 'e', maxAttempts: 1 },
        )
        .catch(() => {});
    }
    expect(r.breakers()[0]).toMatchObject({ state: 'open', openUntil: clock.now() + 1_000 });
  };
  const rejection = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: ResilienceError) => e,
    );

  beforeEach(() => {
    clock = createFakeClock(0);
    recorder = createMemoryRecorder();
  });

  it('holds calls at an open breaker without sending; the oldest probes, then a ramp releases the rest, doubling per round trip', async () => {
    const r = create();
    await open(r);
    const s = server(clock);
    const calls = Array.from({ length: 20 }, () => r.execute(s.fn, { endpoint: 'e', timeoutMs: 30_000 }));
    await clock.advance(999);
    expect(s.sent).toEqual([]);
    expect(r.breakers()[0]?.waiting).toBe(20);

    s.setUp(true);
    await clock.advance(1);
    const rounds = [s.inFlight];
    while (s.inFlight > 0) {
      await s.answer();
      rounds.push(s.inFlight);
    }
    expect(rounds).toEqual([1, 2, 4, 8, 5, 0]);
    expect(await Promise.all(calls)).toEqual(Array(20).fill('ok'));
    expect(s.sent.every((t) => t === 1_000)).toBe(true);
    expect(recorder.ofType('call_finished').filter((e) => e.outcome === 'success')).toHaveLength(20);
  });

  it('paces the ramp: one release every smoothed round trip / window, not a burst per answer', async () => {
    const r = create();
    await open(r);
    const sent: number[] = [];
    const slow = async () => {
      sent.push(clock.now());
      await clock.sleep(100); // every answer takes 100 ms
      return 'ok';
    };
    const calls = Array.from({ length: 12 }, () => r.execute(slow, { endpoint: 'e', timeoutMs: 30_000 }));
    await clock.advance(2_000);
    expect(await Promise.all(calls)).toEqual(Array(12).fill('ok'));
    // probe at 1000; closed at 1100 with no round trip measured yet: the first window (2) goes at once. From
    // the first answers at 1200 (RTT 100) one release every 100 / window ms, the window growing by one per
    // answer: 1200 (w 3), 1234 (w 4: +25), 1259, 1284, 1309 (w 5: +20), 1329, 1349 (w 6: +17), 1366 (w 7: +15), 1381
    expect(sent).toEqual([
      1_000, 1_100, 1_100, 1_200, 1_234, 1_259, 1_284, 1_309, 1_329, 1_349, 1_366, 1_381,
    ]);
  });

  it('halves the ramp when a released call fails, and lets new calls queue behind the backlog', async () => {
    const r = create({ maxAttempts: 1 });
    await open(r);
    const s = server(clock);
    const calls = Array.from({ length: 12 }, () =>
      rejection(r.execute(s.fn, { endpoint: 'e', timeoutMs: 30_000 })),
    );
    await clock.advance(1_000);
    s.setUp(true);
    expect(s.inFlight).toBe(1); // the probe
    await s.answer(); // closed: window 2
    expect(s.inFlight).toBe(2);
    s.setUp(false);
    await s.answer(); // both fail: 2 -> 1 -> 1 (floor), nothing re-opens while the ramp can shrink
    expect(r.breakers()[0]?.state).toBe('closed');
    expect(s.inFlight).toBe(1);
    const late = rejection(r.execute(s.fn, { endpoint: 'e', timeoutMs: 30_000 }));
    await clock.advance(0);
    expect(s.inFlight).toBe(1); // the newcomer waits behind the backlog
    s.setUp(true);
    while (s.inFlight > 0) await s.answer();
    const results = await Promise.all([...calls, late]);
    expect(results.filter((x) => x === undefined)).toHaveLength(11);
  });

  it('fails at once with circuit_open and the time until the next probe when the deadline falls before it', async () => {
    const r = create();
    await open(r);
    await clock.advance(200);
    const s = server(clock);
    const error = await rejection(r.execute(s.fn, { endpoint: 'e', timeoutMs: 700 }));
    expect(error).toMatchObject({
      attempts: 0,
      reason: 'circuit_open',
      classification: { type: 'circuit_open', execution: 'not_sent', retryAfterMs: 800 },
    });
    expect(recorder.ofType('call_finished').at(-1)).toMatchObject({ outcome: 'rejected', time: 200 });
    expect(recorder.ofType('breaker_wait_started')).toEqual([]);
    expect(s.sent).toEqual([]);
  });

  it('fails a waiter as soon as a failed probe puts the next one past its deadline', async () => {
    const r = create();
    await open(r);
    const s = server(clock);
    const prober = rejection(r.execute(s.fn, { endpoint: 'e', timeoutMs: 60_000, maxAttempts: 1 }));
    const waiter = rejection(r.execute(s.fn, { endpoint: 'e', timeoutMs: 2_500 }));
    await clock.advance(1_000);
    expect(s.sent).toEqual([1_000]); // one probe
    await s.answer(); // it fails: the next probe comes 2 s later, at 3 000, past the waiter's deadline
    expect(await waiter).toMatchObject({
      reason: 'circuit_open',
      classification: { type: 'circuit_open', retryAfterMs: 2_000 },
    });
    expect(recorder.ofType('call_finished').at(-1)).toMatchObject({ time: 1_000 });
    expect(recorder.ofType('breaker_wait_finished').map((e) => e.outcome)).toEqual(['released', 'timeout']);
    await prober;
  });

  it('sheds a call at once when the wait queue is full', async () => {
    const r = create({ breakerMaxWaiting: 2 });
    await open(r);
    const s = server(clock);
    const waiting = [1, 2].map(() => rejection(r.execute(s.fn, { endpoint: 'e', timeoutMs: 30_000 })));
    const shed = await rejection(r.execute(s.fn, { endpoint: 'e', timeoutMs: 30_000 }));
    expect(shed).toMatchObject({
      attempts: 0,
      reason: 'shed',
      classification: { type: 'circuit_open', source: 'circuit_breaker.queue' },
    });
    expect(shed?.message).toContain('2 calls already wait');
    expect(recorder.ofType('breaker_wait_finished')).toMatchObject([{ outcome: 'shed', durationMs: 0 }]);
    expect(recorder.ofType('call_finished').at(-1)).toMatchObject({ outcome: 'rejected', reason: 'shed' });
    s.setUp(true);
    await clock.advance(1_000);
    while (s.inFlight > 0) await s.answer();
    expect(await Promise.all(waiting)).toEqual([undefined, undefined]);
  });

  it("ends a wait at once when the caller's signal aborts, and removes its listener", async () => {
    const r = create();
    await open(r);
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    const s = server(clock);
    const call = rejection(r.execute(s.fn, { endpoint: 'e', signal: controller.signal, timeoutMs: 30_000 }));
    await clock.advance(300);
    controller.abort(new Error('user cancelled'));
    expect(await call).toMatchObject({ reason: 'aborted', attempts: 0 });
    expect(recorder.ofType('breaker_wait_finished')).toMatchObject([{ outcome: 'aborted', durationMs: 300 }]);
    expect(r.breakers()[0]?.waiting).toBe(0);
    const added = add.mock.calls.filter(([type]) => type === 'abort').map(([, listener]) => listener);
    const removed = remove.mock.calls.filter(([type]) => type === 'abort').map(([, listener]) => listener);
    expect(added.length).toBeGreaterThan(0);
    expect(removed).toEqual(expect.arrayContaining(added));
    expect(s.sent).toEqual([]);
  });

  it('leaves no listener of its wait on the signal of a call that was released', async () => {
    const r = create();
    await open(r);
    const controller = new AbortController();
    const s = server(clock);
    s.setUp(true);
    for (let i = 0; i < 3; i++) {
      const call = r.execute(s.fn, { endpoint: 'e', signal: controller.signal, timeoutMs: 30_000 });
      await clock.advance(1_000);
      await s.answer();
      expect(await call).toBe('ok');
    }
    expect(recorder.ofType('breaker_wait_finished').map((e) => e.outcome)).toEqual(['released']);
    // only the attempts' one listener for the signal's lifetime (runAttempt), none of the wait
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
  });

  it('without a deadline, waits within breakerWaitLimitMs only while the time left is at least the outage age', async () => {
    const r = create({ breakerWaitLimitMs: 5_000 });
    await open(r);
    await clock.advance(1_000); // the outage is 1 s old
    const s = server(clock);
    const prober = rejection(r.execute(s.fn, { endpoint: 'e', maxAttempts: 1 }));
    const waiter = rejection(r.execute(async () => 'never sent', { endpoint: 'e' }));
    await clock.advance(1_999); // the probe hangs: the waiter stays queued
    expect(r.breakers()[0]?.waiting).toBe(1);
    // its limit at 6 s: at 3 s the time left (3 s) falls to the outage's age (open since 0): it stops there
    await clock.advance(1);
    expect(await waiter).toMatchObject({ reason: 'circuit_open', attempts: 0 });
    expect(recorder.ofType('breaker_wait_finished').at(-1)).toMatchObject({
      outcome: 'timeout',
      durationMs: 2_000,
    });
    await s.answer();
    await prober;
  });

  it('holds the retries of calls in flight when the breaker opens, instead of sending them into the outage', async () => {
    const r = create({ breakerConsecutiveFailures: 3 });
    const s = server(clock);
    const calls = [1, 2, 3].map(() => r.execute(s.fn, { endpoint: 'e', timeoutMs: 30_000 }));
    await clock.advance(0);
    await s.answer(); // three first attempts fail: open, next probe at 1 000
    expect(r.breakers()[0]?.state).toBe('open');
    await clock.advance(999);
    expect(s.sent).toEqual([0, 0, 0]); // their retries (backoff 100, 200 ms) wait at the gate
    s.setUp(true);
    await clock.advance(1);
    while (s.inFlight > 0) await s.answer();
    expect(await Promise.all(calls)).toEqual(['ok', 'ok', 'ok']);
    expect(s.sent).toEqual([0, 0, 0, 1_000, 1_000, 1_000]);
    expect(recorder.ofType('breaker_wait_started').map((e) => e.attempt)).toEqual([2, 2, 2]);
  });

  it('fail-fast (breakerWait: false) rejects at once, as before', async () => {
    const r = create({ breakerWait: false });
    await open(r);
    const error = await rejection(r.execute(async () => 'never sent', { endpoint: 'e', timeoutMs: 30_000 }));
    expect(error).toMatchObject({
      attempts: 0,
      reason: 'circuit_open',
      classification: { retryAfterMs: 1_000 },
    });
    expect(recorder.ofType('breaker_wait_started')).toEqual([]);
  });

  it("holds a retry while other calls' attempts fail, and lets it go on the first success elsewhere", async () => {
    const r = create({ breakerConsecutiveFailures: 10 });
    const s = server(clock);
    const a = r.execute(s.fn, { endpoint: 'e', timeoutMs: 30_000 });
    const b = r.execute(s.fn, { endpoint: 'e', timeoutMs: 30_000 });
    await clock.advance(0);
    await s.answer(); // both first attempts fail: two failures in a row, the last one b's
    await clock.advance(300); // a's retry (after 100 ms) is held; b's (after 100 ms) goes: the last failure was its own
    expect(s.sent).toEqual([0, 0, 100]);
    expect(r.breakers()[0]?.waiting).toBe(1);
    s.setUp(true);
    await s.answer(); // b's retry succeeds: a's retry goes at once
    expect(s.sent).toEqual([0, 0, 100, 300]);
    await s.answer();
    expect(await Promise.all([a, b])).toEqual(['ok', 'ok']);
  });

  it("never holds a lone call's retries", async () => {
    const r = create();
    const s = server(clock);
    const call = r.execute(s.fn, { endpoint: 'e', timeoutMs: 30_000 });
    for (let i = 0; i < 3; i++) {
      await clock.advance(0);
      await s.answer();
      await clock.advance(1_000);
    }
    expect(s.sent).toEqual([0, 100, 1_200, 2_400]); // 100, 200, 400 ms of backoff after each answer: never held
    s.setUp(true);
    await clock.advance(0);
    await s.answer();
    expect(await call).toBe('ok');
  });

  it('sends as the probe a call not sent yet rather than one that already failed', async () => {
    const r = create({ breakerConsecutiveFailures: 1 });
    const s = server(clock);
    const failed = r.execute(s.fn, { endpoint: 'e', timeoutMs: 30_000 });
    await clock.advance(0);
    await s.answer(); // opens; its retry waits at the gate, first in line
    await clock.advance(500);
    let sentBeforeFresh: number | undefined;
    const fresh = r.execute(
      async () => {
        sentBeforeFresh = s.sent.length;
        return 'fresh';
      },
      { endpoint: 'e', timeoutMs: 30_000 },
    );
    await clock.advance(500);
    expect(sentBeforeFresh).toBe(1); // the fresh call went first, as the probe
    expect(await fresh).toBe('fresh');
    expect(s.sent).toEqual([0, 1_000]); // then the ramp released the retry
    s.setUp(true);
    await clock.advance(0);
    await s.answer();
    expect(await failed).toBe('ok');
  });

  describe('waiting is a bet placed with evidence', () => {
    /** Keeps the endpoint down for `ms` more, and ends right after a failed probe (the breaker open). */
    const outage = async (r: ReturnType<typeof create>, s: ReturnType<typeof server>, ms: number) => {
      const until = clock.now() + ms;
      for (;;) {
        if (r.breakers()[0]?.state === 'half_open') {
          const probe = rejection(r.execute(s.fn, { endpoint: 'e', maxAttempts: 1 }));
          await clock.advance(0);
          await s.answer();
          await probe;
          if (clock.now() >= until) return;
        }
        await clock.advance(100);
      }
    };
    /** Runs the fake clock until `call` settles, answering whatever is in flight. */
    const drive = async (s: ReturnType<typeof server>, call: Promise<unknown>) => {
      let done = false;
      void call.finally(() => {
        done = true;
      });
      while (!done) {
        await clock.advance(100);
        if (s.inFlight > 0) await s.answer();
      }
    };

    it('fails at once, sending nothing, when the outage is old: recovery before the limit is unlikely', async () => {
      const r = create({ breakerWaitOdds: 0.25 });
      await open(r);
      const s = server(clock);
      await outage(r, s, 100_000);
      const sentBefore = s.sent.length;
      // odds 30 / (100 + 30) < 0.25: not worth waiting for
      const error = await rejection(r.execute(s.fn, { endpoint: 'e', timeoutMs: 30_000 }));
      expect(error).toMatchObject({
        attempts: 0,
        reason: 'circuit_open',
        classification: { type: 'circuit_open' },
      });
      expect(error?.retryAfterMs).toBeGreaterThanOrEqual(0);
      expect(error?.retryAfterMs).toBe(error?.classification.retryAfterMs);
      expect(s.sent.length).toBe(sentBefore);
      expect(recorder.ofType('breaker_wait_started')).toEqual([]);
    });

    it('waits when the outage is young, and is released by the probe', async () => {
      const r = create({ breakerWaitOdds: 0.25 });
      await open(r);
      const s = server(clock);
      await outage(r, s, 20_000);
      // odds 30 / (20 + 30) >= 0.25: worth waiting for
      const call = r.execute(s.fn, { endpoint: 'e', timeoutMs: 30_000 });
      await clock.advance(0);
      expect(r.breakers()[0]?.waiting).toBe(1);
      s.setUp(true);
      const waitStart = clock.now();
      while (s.inFlight === 0) await clock.advance(100);
      // one call alone: the next probe when the outage is a quarter older (about 24 s old at the last failed
      // probe: 6 s later, ±20% jitter)
      expect(clock.now() - waitStart).toBeLessThanOrEqual(8_000);
      await s.answer();
      expect(await call).toBe('ok');
    });

    it('a call without a limit of its own waits only while recovery is likely, then fails with circuit_open and retryAfterMs', async () => {
      const r = create();
      const s = server(clock);
      await open(r);
      const start = clock.now();
      const call = rejection(r.execute(s.fn, { endpoint: 'e' }));
      await drive(s, call); // its own requests are the probes while it waits; each fails
      const error = await call;
      const waited = clock.now() - start;
      expect(error).toMatchObject({ reason: 'circuit_open' });
      expect(error?.retryAfterMs).toBeGreaterThan(0);
      // 60 s limit from its start: the bet ends once the time left is less than the outage's age (odds < 1/2),
      // and the call stops as soon as the next probe would come after that, not at the bet's end
      expect(waited).toBeGreaterThan(20_000);
      expect(waited).toBeLessThanOrEqual(30_000);
      // one request per probe interval (1, 2, then 4 s apart), its own, while it waits
      expect(s.sent.length).toBeLessThanOrEqual(12);
      expect(error?.attempts).toBe(s.sent.length);
    });

    it('a call without a limit of its own does not wait for a probe that would come after its bet ends', async () => {
      const r = create();
      await open(r);
      const s = server(clock);
      await outage(r, s, 40_000);
      // odds 60 / (40 + 60) >= 1/2: the bet holds for 10 s (until the time left equals the age), but alone it
      // would have the next probe only a quarter of the outage's age (over 40 s: over 10 s) after the last one
      const start = clock.now();
      const error = await rejection(r.execute(s.fn, { endpoint: 'e' }));
      expect(error).toMatchObject({ attempts: 0, reason: 'circuit_open' });
      expect(clock.now()).toBe(start);
      expect(error?.retryAfterMs).toBeGreaterThan(10_000);
      expect(recorder.ofType('breaker_wait_started')).toEqual([]);
    });

    it('a waiter leaves at the moment its odds, judged again as the outage ages, fall below breakerStayOdds; one the recovery reaches stays', async () => {
      const r = create({
        breakerConsecutiveFailures: 1,
        breakerWaitOdds: 0.25,
        breakerStayOdds: 0.25,
        breakerProbeTimeoutMs: 120_000,
      });
      const s = server(clock);
      const settled = (p: Promise<unknown>) =>
        p.then(
          (value) => ({ at: clock.now(), value }),
          (error: ResilienceError) => ({ at: clock.now(), reason: error.reason }),
        );
      // the outage starts at 0: both calls' first requests fail (the breaker opens), their retries wait
      const short = settled(r.execute(s.fn, { endpoint: 'e', timeoutMs: 30_000 }));
      const long = settled(r.execute(s.fn, { endpoint: 'e', timeoutMs: 60_000 }));
      await clock.advance(0);
      await s.answer();
      expect(r.breakers()[0]?.state).toBe('open');
      // a fresh call is the probe; its request hangs until the server is back
      const probe = r.execute(s.fn, { endpoint: 'e', maxAttempts: 1 });
      while (s.inFlight === 0) await clock.advance(100);
      expect(r.breakers()[0]).toMatchObject({ state: 'half_open', waiting: 2 });
      // judged again as it waits, the short call's odds are 1 - age / 30 s: below 0.25 from 22.5 s on
      await clock.advance(22_499 - clock.now());
      expect(r.breakers()[0]?.waiting).toBe(2);
      await clock.advance(1);
      expect(await short).toEqual({ at: 22_500, reason: 'circuit_open' });
      expect(r.breakers()[0]?.waiting).toBe(1);
      // the long call's odds, 1 - age / 60 s, stay above 0.25 until 45 s: the recovery at 30 s releases it
      await clock.advance(30_000 - clock.now());
      s.setUp(true);
      await s.answer();
      expect(await probe).toBe('ok');
      while (s.inFlight === 0) await clock.advance(10);
      await s.answer();
      expect(await long).toMatchObject({ value: 'ok' });
      expect(s.sent).toHaveLength(4); // two failed first requests, the probe, the long call's released retry
    });

    it('with breakerStayOdds 0, the same waiter waits to its limit', async () => {
      const r = create({ breakerConsecutiveFailures: 1, breakerStayOdds: 0, breakerProbeTimeoutMs: 120_000 });
      const s = server(clock);
      const short = rejection(r.execute(s.fn, { endpoint: 'e', timeoutMs: 30_000 }));
      await clock.advance(0);
      await s.answer();
      void r.execute(s.fn, { endpoint: 'e', maxAttempts: 1 }).catch(() => {});
      await clock.advance(29_999);
      expect(r.breakers()[0]?.waiting).toBe(1);
      await clock.advance(1);
      expect(await short).toMatchObject({ reason: 'circuit_open' });
    });

    it("a lone call's attempts are not spent as probes: after many failed probes it still succeeds", async () => {
      const r = create({ maxAttempts: 3 });
      const s = server(clock);
      await open(r);
      const call = r.execute(s.fn, { endpoint: 'e', timeoutMs: 60_000 });
      for (let probes = 0; probes < 5; ) {
        await clock.advance(100);
        if (s.inFlight > 0) {
          probes++;
          await s.answer();
        }
      }
      s.setUp(true);
      while (s.inFlight === 0) await clock.advance(100);
      await s.answer();
      expect(await call).toBe('ok');
      expect(s.sent).toHaveLength(6); // five failed probes and the one that found the server back
      const times = s.sent.map((t, i) => (i === 0 ? 0 : t - s.sent[i - 1]!));
      expect(times.slice(1).every((gap) => gap >= 1_000)).toBe(true); // at most one request per probe interval
    });
  });
});
