import { describe, expect, it } from 'vitest';
import { computeMetrics, diagnose, percentile } from '../src/metrics.js';
import type { AttemptTrace, CallTrace } from '../src/simulate.js';

const ok = (k: number, start: number, end: number): AttemptTrace => ({
  k,
  start,
  end,
  ok: true,
  down: false,
  aborted: false,
});
const fail = (k: number, start: number, end: number, transient: boolean, down = false): AttemptTrace => ({
  k,
  start,
  end,
  ok: false,
  fault: transient ? (down ? 'connection_refused' : 'bad_gateway_502') : 'invalid_argument_400',
  transient,
  down,
  aborted: false,
});
const call = (
  id: number,
  start: number,
  end: number,
  attempts: AttemptTrace[],
  success: boolean,
): CallTrace => ({
  id,
  start,
  end,
  ok: success,
  endedBy: success ? 'success' : 'error',
  outcome: success ? 'success' : 'error',
  attempts,
});

/** A tiny trace, by hand. */
const trace: CallTrace[] = [
  // a transient failure, then a successful retry after a 200 ms wait
  call(0, 0, 400, [fail(1, 0, 100, true), ok(2, 300, 400)], true),
  // a non-retryable error, given up at once
  call(1, 0, 50, [fail(1, 0, 50, false)], false),
  // an outage: two requests while down, the third succeeds
  call(2, 0, 600, [fail(1, 0, 10, true, true), fail(2, 110, 120, true, true), ok(3, 520, 600)], true),
  // a non-retryable error retried once after a 1 s wait (a blind loop)
  call(3, 0, 1_080, [fail(1, 0, 40, false), fail(2, 1_040, 1_080, false)], false),
  // a call failed without any request (an open breaker)
  call(4, 0, 0, [], false),
];

describe('computeMetrics', () => {
  const m = computeMetrics(trace);

  it('counts calls, requests and retries', () => {
    expect(m.calls).toBe(5);
    expect(m.succeeded).toBe(2);
    expect(m.successRate).toBe(0.4);
    expect(m.requests).toBe(8);
    expect(m.retries).toBe(4);
    expect(m.successfulRetries).toBe(2);
    expect(m.wastedRetries).toBe(2);
    expect(m.failedWithoutRequest).toBe(1);
  });

  it('computes retry efficiency as successful retries / retries', () => {
    expect(m.retryEfficiency).toBe(0.5);
    expect(computeMetrics([trace[1]!]).retryEfficiency).toBeNull();
  });

  it('charges each wasted retry its duration plus the wait before it', () => {
    // call 2, request 2: waited 100 ms after request 1 ended, took 10 ms; call 3, request 2: 1000 + 40 ms
    expect(m.wastedTimeMs).toBe(110 + 1_040);
  });

  it('counts the requests sent while the endpoint was down, and which were first requests', () => {
    expect(m.requestsWhileDown).toBe(2);
    expect(m.firstRequestsWhileDown).toBe(1);
  });

  it('computes MTTF over the calls that ended with a non-retryable error, against one attempt', () => {
    expect(m.nonRetryableFailures).toBe(2);
    expect(m.mttfNonRetryableMs).toBe((50 + 1_080) / 2);
    expect(m.singleAttemptMs).toBe((50 + 40) / 2);
    expect(m.mttfRatio).toBeCloseTo(565 / 45, 10);
    expect(m.mttfFirstRequestRatio).toBeCloseTo(1_130 / 90, 10);
  });

  it('separates the calls that waited before their first request (an open breaker, a Retry-After)', () => {
    // bad arguments, but the call waited 5 s at an open breaker before its only request
    const waited = call(5, 0, 5_050, [fail(1, 5_000, 5_050, false)], false);
    const atOnce = call(1, 0, 50, [fail(1, 0, 50, false)], false);
    const w = computeMetrics([atOnce, waited]);
    expect(w.mttfFirstRequestRatio).toBeCloseTo(5_100 / 100, 10);
    expect(w.mttfSentAtOnceRatio).toBe(1);
    expect(computeMetrics([waited]).mttfSentAtOnceRatio).toBeNull();
  });

  it('takes nearest-rank percentiles of call latency', () => {
    // durations sorted: 0, 50, 400, 600, 1080
    expect(m.p50Ms).toBe(400);
    expect(m.p99Ms).toBe(1_080);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('diagnose', () => {
  it('says what each wasted retry met and where non-retryable calls spent their time', () => {
    const d = diagnose(trace);
    expect(d.wastedRetries).toMatchObject({
      endpointStillDown: 1,
      permanentFaultRetried: 1,
      permanentFaultRevealed: 0,
      medianWaitBeforeDownRetryMs: 100,
    });
    expect(d.nonRetryable).toMatchObject({ calls: 2, atOnce: 1, retriedNonRetryable: 1, retriedMs: 1_040 });
  });

  it('tells a permanent fault hidden behind a transient failure from one retried again', () => {
    const hidden = call(0, 0, 300, [fail(1, 0, 100, true), fail(2, 200, 300, false)], false);
    const d = diagnose([hidden]);
    expect(d.wastedRetries.permanentFaultRevealed).toBe(1);
    expect(d.nonRetryable).toMatchObject({ calls: 1, afterTransientFailures: 1, transientMs: 200 });
  });
});

describe('computeMetrics: the time that failing costs', () => {
  const calls: CallTrace[] = [
    call(0, 0, 400, [ok(1, 0, 400)], true),
    call(1, 1_000, 1_010, [fail(1, 1_000, 1_010, true, true)], false),
    call(2, 2_000, 33_000, [fail(1, 2_000, 2_010, true, true)], false),
    call(3, 3_000, 3_100, [fail(1, 3_000, 3_100, false)], false),
    // answered after the window (ends at 70 s of a 60 s window)
    call(4, 50_000, 70_000, [ok(1, 69_000, 70_000)], true),
  ];

  it('sums the durations of the failed calls, with the median and p95 of one', () => {
    const m = computeMetrics(calls);
    expect(m.failedCalls).toBe(3);
    expect(m.failedTimeMs).toBe(10 + 31_000 + 100);
    expect(m.failedP50Ms).toBe(100);
    expect(m.failedP95Ms).toBe(31_000);
  });

  it('counts what was answered within the window, per minute and per run', () => {
    const m = computeMetrics(calls, { durationMs: 60_000, runs: 2 });
    expect(m.completedInWindow).toBe(4);
    // one success within the window, over 2 runs of 1 min
    expect(m.answeredPerMinute).toBe(0.5);
    expect(computeMetrics(calls).answeredPerMinute).toBeNull();
    expect(computeMetrics(calls).completedInWindow).toBe(5);
  });

  it('has no failed-call durations without failures', () => {
    const m = computeMetrics([calls[0]!]);
    expect(m.failedTimeMs).toBe(0);
    expect(m.failedP50Ms).toBeNaN();
  });
});
