import { beforeEach, describe, expect, it } from 'vitest';
import { createResilience } from './createResilience.js';
import { isResilienceError, type ResilienceError } from './errors/ResilienceError.js';
import type { ResilienceOptions } from './options.js';
import { createMemoryRecorder, type MemoryRecorder } from './record/createMemoryRecorder.js';
import { createFakeClock, type FakeClock } from './testing/createFakeClock.js';

const httpError = (status: number, message = `HTTP ${status}`, headers?: Record<string, string>) =>
  Object.assign(new Error(message), { status, ...(headers ? { headers } : {}) });
const refused = () =>
  new TypeError('fetch failed', {
    cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
  });
const reset = () =>
  new TypeError('fetch failed', {
    cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
  });

/** A function that fails with the given errors in turn, then returns 'ok'; it records when each attempt ran. */
function script(clock: FakeClock, ...failures: Array<unknown>) {
  const calls: number[] = [];
  const fn = async () => {
    calls.push(clock.now());
    const failure = failures[calls.length - 1];
    if (failure !== undefined) throw failure;
    return 'ok';
  };
  return Object.assign(fn, { calls });
}

/** Runs a call to completion on the fake clock and returns its result or error. */
async function settle<T>(clock: FakeClock, promise: Promise<T>): Promise<T | ResilienceError> {
  const result = promise.then(
    (v) => v,
    (e: ResilienceError) => e,
  );
  await clock.runAll();
  return result;
}

describe('createResilience', () => {
  let clock: FakeClock;
  let recorder: MemoryRecorder;
  const create = (options: ResilienceOptions = {}) =>
    createResilience({ clock, recorder, jitter: 'none', breakerJitter: 0, ...options });

  beforeEach(() => {
    clock = createFakeClock(0);
    recorder = createMemoryRecorder();
  });

  it('returns the value of a first attempt that succeeds', async () => {
    const r = create();
    const fn = script(clock);
    expect(await r.execute(fn)).toBe('ok');
    expect(fn.calls).toEqual([0]);
    expect(recorder.events.map((e) => e.type)).toEqual([
      'recorder_attached',
      'call_started',
      'attempt_started',
      'attempt_finished',
      'call_finished',
    ]);
  });

  it('retries a retryable failure after the backoff and succeeds', async () => {
    const r = create();
    const fn = script(clock, httpError(503), httpError(503));
    expect(await settle(clock, r.execute(fn))).toBe('ok');
    expect(fn.calls).toEqual([0, 100, 300]);
    const finished = recorder.ofType('call_finished')[0]!;
    expect(finished).toMatchObject({ outcome: 'success', attempts: 3, wastedRetries: 1, wastedTimeMs: 100 });
  });

  it('fails a non-retryable error at once, after one attempt, with its classification', async () => {
    const r = create();
    const fn = script(clock, httpError(400, 'Invalid city: Atlantis'));
    const error = (await settle(clock, r.execute(fn))) as ResilienceError;
    expect(isResilienceError(error)).toBe(true);
    expect(fn.calls).toEqual([0]);
    expect(error.attempts).toBe(1);
    expect(error.reason).toBe('non_retryable');
    expect(error.classification).toMatchObject({ class: 'non_retryable', type: 'invalid_request' });
    expect((error.cause as Error).message).toBe('Invalid city: Atlantis');
    expect(recorder.ofType('failure_classified')[0]).toMatchObject({ decision: 'give_up', delayMs: 0 });
  });

  it('stops after maxAttempts and carries the last failure', async () => {
    const r = create({ maxAttempts: 2 });
    const fn = script(clock, httpError(502), httpError(503, 'still down'));
    const error = (await settle(clock, r.execute(fn))) as ResilienceError;
    expect(fn.calls).toHaveLength(2);
    expect(error).toMatchObject({ attempts: 2, reason: 'max_attempts' });
    expect((error.cause as Error).message).toBe('still down');
  });

  it('does not repeat an ambiguous failure of a non-idempotent call, but repeats one never sent', async () => {
    const r = create();
    const ambiguous = script(clock, reset());
    const error = (await settle(clock, r.execute(ambiguous, { idempotent: false }))) as ResilienceError;
    expect(ambiguous.calls).toHaveLength(1);
    expect(error.reason).toBe('not_idempotent');

    const notSent = script(clock, refused());
    expect(await settle(clock, r.execute(notSent, { idempotent: false }))).toBe('ok');
    expect(notSent.calls).toHaveLength(2);
  });

  it('waits at least Retry-After (plus the margin) on a rate limit', async () => {
    const r = create();
    const fn = script(clock, httpError(429, 'Too Many Requests', { 'retry-after': '2' }));
    expect(await settle(clock, r.execute(fn))).toBe('ok');
    expect(fn.calls).toEqual([0, 2_100]);
    expect(recorder.ofType('failure_classified')[0]).toMatchObject({ decision: 'wait', delayMs: 2_100 });
  });

  it('fails at once when Retry-After is above the ceiling or past the deadline', async () => {
    const r = create({ retryAfterMaxMs: 10_000 });
    const tooLong = script(clock, httpError(429, 'slow down', { 'retry-after': '30' }));
    const error = (await settle(clock, r.execute(tooLong, { endpoint: 'a' }))) as ResilienceError;
    expect(error.reason).toBe('retry_after_too_long');
    expect(clock.now()).toBe(0);

    const pastDeadline = script(clock, httpError(429, 'slow down', { 'retry-after': '5' }));
    const error2 = (await settle(
      clock,
      r.execute(pastDeadline, { endpoint: 'b', timeoutMs: 3_000 }),
    )) as ResilienceError;
    expect(error2.reason).toBe('deadline');
    expect(pastDeadline.calls).toHaveLength(1);
    expect(recorder.ofType('call_finished').at(-1)?.time).toBe(0);
  });

  it("applies an endpoint's Retry-After to the other calls to it", async () => {
    const r = create();
    const first = script(clock, httpError(429, 'rate limited', { 'retry-after': '4' }));
    const firstDone = r.execute(first, { endpoint: 'search' });
    await clock.advance(0);
    const second = script(clock);
    const secondDone = r.execute(second, { endpoint: 'search' });
    const third = script(clock);
    const thirdDone = r
      .execute(third, { endpoint: 'search', timeoutMs: 1_000 })
      .catch((e: ResilienceError) => e);
    await clock.runAll();
    await Promise.all([firstDone, secondDone]);
    expect(second.calls).toEqual([4_000]);
    expect(third.calls).toEqual([]);
    expect(await thirdDone).toMatchObject({ reason: 'deadline', attempts: 0 });
    expect(recorder.ofType('call_finished').find((e) => e.attempts === 0)?.outcome).toBe('rejected');
  });

  it('aborts at once when the caller aborts, without retrying', async () => {
    const r = create();
    const controller = new AbortController();
    const fn = script(clock, httpError(503));
    const done = r.execute(fn, { signal: controller.signal }).catch((e: ResilienceError) => e);
    await clock.advance(50);
    controller.abort();
    const error = (await done) as ResilienceError;
    expect(error.reason).toBe('aborted');
    expect(error.classification.type).toBe('cancelled');
    expect(fn.calls).toHaveLength(1);
  });

  it('ends an attempt that ignores its signal when the deadline passes', async () => {
    const r = create();
    let seen: AbortSignal | undefined;
    const done = r
      .execute(
        ({ signal }) => {
          seen = signal;
          return new Promise(() => {});
        },
        { timeoutMs: 1_000 },
      )
      .catch((e: ResilienceError) => e);
    await clock.advance(1_000);
    const error = (await done) as ResilienceError;
    expect(seen?.aborted).toBe(true);
    expect(error).toMatchObject({ reason: 'deadline', attempts: 1 });
    expect(error.classification.type).toBe('timeout');
  });

  it('limits each attempt with attemptTimeoutMs and retries the timeout', async () => {
    const r = create({ attemptTimeoutMs: 500 });
    let n = 0;
    const done = r.execute(() => (++n === 1 ? new Promise(() => {}) : 'ok'));
    await clock.runAll();
    expect(await done).toBe('ok');
    expect(n).toBe(2);
    expect(recorder.ofType('attempt_finished')[0]).toMatchObject({ durationMs: 500, outcome: 'failure' });
  });

  it('refuses retries beyond the budget and says so', async () => {
    const r = create({ budgetMinRetriesPerSecond: 0.1, budgetRatio: 0, breakerConsecutiveFailures: 100 });
    // the one retry of the window is spent and fails (a retry that succeeds would pay for itself)
    const first = script(clock, httpError(503), httpError(503));
    expect(await settle(clock, r.execute(first, { maxAttempts: 2 }))).toMatchObject({
      reason: 'max_attempts',
    });
    const second = script(clock, httpError(503));
    const error = (await settle(clock, r.execute(second))) as ResilienceError;
    expect(error.reason).toBe('budget_exhausted');
    expect(recorder.ofType('budget_refused')).toHaveLength(1);
    expect(recorder.ofType('failure_classified').at(-1)?.decision).toBe('budget_exhausted');
  });

  it('retries a brownout whose retries succeed without limit, and stops a storm whose retries fail at the budget', async () => {
    const r = create({
      budgetRatio: 0.2,
      budgetMinRetriesPerSecond: 0.5,
      breakerConsecutiveFailures: 1_000,
      breakerMinimumCalls: 1_000,
      maxAttempts: 2,
    });
    for (let i = 0; i < 40; i++) {
      const fn = script(clock, httpError(503)); // the first attempt fails, the retry gets through
      expect(await settle(clock, r.execute(fn, { endpoint: 'brownout' }))).toBe('ok');
    }
    expect(recorder.ofType('budget_refused')).toEqual([]);

    const storm = script(clock);
    const failing = async () => {
      storm.calls.push(clock.now());
      throw httpError(503);
    };
    for (let i = 0; i < 40; i++) await settle(clock, r.execute(failing, { endpoint: 'storm' }));
    // every retry failing: retries + 1 <= 5 (the floor) + 0.2 × calls, so 13 of 40 calls get one (4 s, one window)
    expect(clock.now()).toBeLessThan(10_000);
    expect(storm.calls.length - 40).toBe(13);
    expect(recorder.ofType('budget_refused')).toHaveLength(27);
  });

  it('fail-fast: opens the breaker, rejects fast with circuit_open, and closes after a successful probe', async () => {
    const r = create({
      maxAttempts: 1,
      breakerWait: false,
      breakerBreakMs: 10_000,
      breakerMaxBreakMs: 300_000,
    });
    let down = true;
    const fn = async () => {
      if (down) throw httpError(503);
      return 'ok';
    };
    const call = () => r.execute(fn, { endpoint: 'weather' }).catch((e: ResilienceError) => e);
    for (let i = 0; i < 5; i++) await call();
    expect(r.breakers()[0]).toMatchObject({ endpoint: 'weather', state: 'open' });

    const rejected = (await call()) as ResilienceError;
    expect(rejected.attempts).toBe(0);
    expect(rejected.classification).toMatchObject({ type: 'circuit_open', execution: 'not_sent' });
    expect(rejected.classification.retryAfterMs).toBeGreaterThan(0);

    down = false;
    await clock.advance(10_000);
    expect(r.breakers()[0]?.state).toBe('half_open');
    expect(await r.execute(fn, { endpoint: 'weather' })).toBe('ok');
    expect(r.breakers()[0]?.state).toBe('closed');
    expect(recorder.ofType('breaker_transition').map((t) => `${t.from}>${t.to}`)).toEqual([
      'closed>open',
      'open>half_open',
      'half_open>closed',
    ]);
    expect(recorder.ofType('breaker_transition')[1]?.callId).toBeUndefined();
  });

  it('a blip that opens the breaker costs the calls in flight a short wait, not their success', async () => {
    const r = create({ breakerConsecutiveFailures: 3 });
    let down = true;
    let sent = 0;
    const fn = async () => {
      sent++;
      if (down) throw httpError(503);
      return 'ok';
    };
    const calls = Array.from({ length: 10 }, () => r.execute(fn, { endpoint: 'e' }));
    await clock.advance(0); // ten first attempts fail at once: the breaker opens
    expect(r.breakers()[0]?.state).toBe('open');
    down = false;
    await clock.runAll();
    expect(await Promise.all(calls)).toEqual(Array(10).fill('ok'));
    // the retries waited at the gate: one probe, then the others, nothing sent while open
    expect(sent).toBe(20);
    expect(recorder.ofType('breaker_transition').map((t) => t.to)).toEqual(['open', 'half_open', 'closed']);
    expect(recorder.ofType('breaker_wait_finished').map((e) => e.outcome)).toEqual(
      Array(10).fill('released'),
    );
  });

  it('fail-fast: admits exactly the configured number of probes among concurrent calls while half-open', async () => {
    const r = create({
      maxAttempts: 1,
      breakerHalfOpenProbes: 2,
      breakerWait: false,
      breakerBreakMs: 10_000,
      breakerMaxBreakMs: 300_000,
    });
    for (let i = 0; i < 5; i++)
      await r.execute(script(clock, httpError(503)), { endpoint: 'e' }).catch(() => {});
    await clock.advance(10_000);
    let started = 0;
    const release: Array<() => void> = [];
    const probe = () =>
      new Promise<string>((resolve) => {
        started++;
        release.push(() => resolve('ok'));
      });
    const calls = Array.from({ length: 10 }, () =>
      r.execute(probe, { endpoint: 'e' }).catch((e: ResilienceError) => e),
    );
    await clock.advance(0);
    expect(started).toBe(2);
    for (const go of release) go();
    const results = await Promise.all(calls);
    expect(results.filter((x) => x === 'ok')).toHaveLength(2);
    expect(
      results.filter((x) => isResilienceError(x) && x.classification.type === 'circuit_open'),
    ).toHaveLength(8);
    expect(r.breakers()[0]?.state).toBe('closed');
  });

  it('fails a probe that outlives its time limit and re-opens', async () => {
    const r = create({
      maxAttempts: 1,
      breakerProbeTimeoutMs: 2_000,
      breakerBreakMs: 10_000,
      breakerMaxBreakMs: 300_000,
    });
    for (let i = 0; i < 5; i++)
      await r.execute(script(clock, httpError(503)), { endpoint: 'e' }).catch(() => {});
    await clock.advance(10_000);
    const done = r.execute(() => new Promise(() => {}), { endpoint: 'e' }).catch((e: ResilienceError) => e);
    await clock.advance(2_000);
    expect(await done).toMatchObject({ classification: { type: 'timeout' } });
    expect(r.breakers()[0]).toMatchObject({ state: 'open', reopenCount: 1 });
  });

  it('non-retryable failures never open the breaker', async () => {
    const r = create();
    for (let i = 0; i < 20; i++)
      await settle(clock, r.execute(script(clock, httpError(422)), { endpoint: 'e' }));
    expect(r.breakers()[0]?.state).toBe('closed');
  });

  it('recovers a conditional failure with the given recovery, then retries; without one it does not retry', async () => {
    const r = create();
    const recovered: string[] = [];
    const fn = script(clock, httpError(404, 'Session not found'));
    const session = Object.assign(new Error('Bad Request: No valid session ID provided'), { status: 400 });
    const fn2 = script(clock, session);
    const recover = {
      session_expired: ({ classification }: { classification: { type: string } }) => {
        recovered.push(classification.type);
      },
    };
    expect(await settle(clock, r.execute(fn2, { recover }))).toBe('ok');
    expect(recovered).toEqual(['session_expired']);
    expect(fn2.calls).toEqual([0, 0]);
    const error = (await settle(clock, r.execute(fn))) as ResilienceError;
    expect(error.reason).toBe('condition_unmet');
    expect(fn.calls).toHaveLength(1);
  });

  it('learns how long the endpoint takes to recover and waits that long before retrying', async () => {
    const r = create({ breakerConsecutiveFailures: 100, maxAttempts: 3 });
    let downUntil = 2_000;
    const fn = async () => {
      if (clock.now() < downUntil) throw httpError(503);
      return 'ok';
    };
    // The first outage: the call gives up after 100 + 200 ms of backoff; a later call sees the recovery.
    expect(await settle(clock, r.execute(fn))).toBeInstanceOf(Error);
    await clock.advance(2_000 - clock.now());
    expect(await r.execute(fn)).toBe('ok');

    downUntil = clock.now() + 2_000;
    recorder.clear();
    const start = clock.now();
    expect(await settle(clock, r.execute(fn))).toBe('ok');
    const second = recorder.ofType('call_finished')[0]!;
    expect(second).toMatchObject({ attempts: 2, wastedRetries: 0 });
    expect(recorder.ofType('retry_scheduled')[0]?.delayMs).toBe(2_000);
    expect(clock.now() - start).toBe(2_000);
  });

  it('lets nested wraps see that retrying already happened, and not multiply it', async () => {
    const r = create();
    const inner = create({ maxAttempts: 3 });
    const fn = script(clock, httpError(503), httpError(503), httpError(503), httpError(503));
    const error = (await settle(
      clock,
      r.execute(() => inner.execute(fn)),
    )) as ResilienceError;
    expect(fn.calls).toHaveLength(3);
    expect(error).toMatchObject({ attempts: 1, reason: 'already_retried' });
    expect(error.classification).toMatchObject({ type: 'unavailable', source: 'resilience_error' });
  });

  it('a throwing recorder never breaks the call', async () => {
    const warn = console.warn;
    const warnings: unknown[] = [];
    console.warn = (...args: unknown[]) => warnings.push(args);
    const r = createResilience({
      clock,
      recorder: {
        record() {
          throw new Error('exporter down');
        },
      },
    });
    try {
      expect(await settle(clock, r.execute(script(clock, httpError(503))))).toBe('ok');
    } finally {
      console.warn = warn;
    }
    expect(warnings).toHaveLength(1);
  });

  it('keeps a bounded number of endpoints', async () => {
    const r = create({ maxEndpoints: 3 });
    for (const endpoint of ['a', 'b', 'c', 'd', 'e']) await r.execute(async () => 1, { endpoint });
    expect(r.breakers().map((b) => b.endpoint)).toEqual(['c', 'd', 'e']);
  });

  it.each([
    [{ retry: { maxAttempts: 0 } }, "option 'retry.maxAttempts' must be an integer >= 1, got 0"],
    [
      { retry: { backoff: { jitter: 'equal' } } },
      "option 'retry.backoff.jitter' must be one of 'full', 'decorrelated', 'none', got 'equal'",
    ],
    [
      { breaker: { failureRate: 1.5 } },
      "option 'breaker.failureRate' must be a number > 0 and <= 1, got 1.5",
    ],
    [
      { retry: { backoff: { baseMs: 500, maxMs: 100 } } },
      "option 'retry.backoff.maxMs' must be >= retry.backoff.baseMs (500), got 100",
    ],
    [{ retries: 3 }, "unknown option 'retries'"],
    [
      { retry: { attempts: 3 } },
      "unknown option 'retry.attempts'; known options of 'retry': maxAttempts, backoff",
    ],
    [{ breaker: 5 }, "option 'breaker' must be an object of consecutiveFailures, failureRate"],
    [{ gate: { wait: 'yes' } }, "option 'gate.wait' must be a boolean, got 'yes'"],
    [{ gate: { maxWaiting: 0 } }, "option 'gate.maxWaiting' must be an integer >= 1, got 0"],
    [{ gate: { waitLimitMs: -1 } }, "option 'gate.waitLimitMs' must be a number >= 0, got -1"],
    [{ gate: { stayOdds: 2 } }, "option 'gate.stayOdds' must be a number >= 0 and <= 1, got 2"],
    [
      { gate: { waitOdds: 0.1, stayOdds: 0.2 } },
      "option 'gate.waitOdds' must be >= gate.stayOdds (0.2), got 0.1",
    ],
    [
      { breaker: { breakMs: 1_000, maxBreakMs: 500 } },
      "option 'breaker.maxBreakMs' must be >= breaker.breakMs (1000), got 500",
    ],
    [{ clock: {} }, "option 'clock' must be an object with now(), sleep(), random(), got {}"],
    [{ maxAttempts: 0 }, "option 'retry.maxAttempts' must be an integer >= 1, got 0"],
    [
      { breakerBreakMs: 100, breaker: { breakMs: 200 } },
      "option 'breakerBreakMs' is the flat name of 'breaker.breakMs'; give only 'breaker.breakMs'",
    ],
  ])('rejects bad options with a message naming the option: %j', (options, message) => {
    expect(() => createResilience(options as ResilienceOptions)).toThrow(message);
  });

  it('keeps the odds to stay at an open breaker at most the odds to start waiting when they are not given', () => {
    expect(createResilience({ breakerWaitOdds: 0 }).options.breakerStayOdds).toBe(0);
    expect(createResilience().options.breakerStayOdds).toBe(0.01);
  });

  it('raises the probe cap with a first break above it when the cap is not given', () => {
    expect(createResilience({ breakerBreakMs: 10_000 }).options.breakerMaxBreakMs).toBe(10_000);
    expect(createResilience({ breakerBreakMs: 1_000 }).options.breakerMaxBreakMs).toBe(2_000);
  });

  it('rejects bad call options with a message naming the option', async () => {
    const r = create();
    await expect(r.execute(async () => 1, { timeoutMs: -1 })).rejects.toThrow(
      "execute: option 'timeoutMs' must be a number > 0, got -1",
    );
    await expect(r.execute(async () => 1, { endpoint: '' })).rejects.toThrow(
      "option 'endpoint' must be a non-empty string",
    );
  });
});
