import type { CallTrace } from './simulate.js';

/** The numbers of design §2, computed from one run's trace. Durations in milliseconds. */
export interface Metrics {
  readonly calls: number;
  readonly succeeded: number;
  readonly successRate: number;
  /** Requests that reached the endpoint (attempts on the wire). */
  readonly requests: number;
  /** Attempts 2..N on the wire. */
  readonly retries: number;
  /** Retries that themselves succeeded. */
  readonly successfulRetries: number;
  /** Retries that failed. */
  readonly wastedRetries: number;
  /** successfulRetries / retries; null without retries. */
  readonly retryEfficiency: number | null;
  /** Each wasted retry's duration plus the wait before it (since the previous attempt ended). */
  readonly wastedTimeMs: number;
  /** Requests sent while the endpoint was down. */
  readonly requestsWhileDown: number;
  /** ...of which first requests of their call (sent before the call had seen any failure). */
  readonly firstRequestsWhileDown: number;
  /** Requests that got a 429 (sent while the endpoint was rate limiting). */
  readonly requestsRateLimited: number;
  /** Requests a server beyond its capacity rejected (the overload scenario). */
  readonly requestsOverloaded: number;
  /** Calls that failed without any request (breaker open, budget, a wait that could not fit the deadline). */
  readonly failedWithoutRequest: number;
  /** Calls still unanswered at their deadline. */
  readonly deadlineExceeded: number;
  /** Call latency (start to answer, the deadline at most), over all calls. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Calls that ended with a non-retryable error (their last request failed with a permanent fault). */
  readonly nonRetryableFailures: number;
  /** Mean duration of those calls (design §2: MTTF for non-retryable errors); null when there are none. */
  readonly mttfNonRetryableMs: number | null;
  /** Mean duration of the single attempt that returned that error. */
  readonly singleAttemptMs: number | null;
  /** mttfNonRetryableMs / singleAttemptMs. */
  readonly mttfRatio: number | null;
  /**
   * The same ratio over the calls whose first request already got the non-retryable error (no transient failure
   * before it): how fast a policy fails on an error it could recognise at once.
   */
  readonly mttfFirstRequestRatio: number | null;
  /** The same over the calls whose first request was sent at once (no wait at a breaker or for a Retry-After). */
  readonly mttfSentAtOnceRatio: number | null;
  /** Calls that failed (error or deadline). */
  readonly failedCalls: number;
  /** The time that calls which failed anyway cost their caller: the sum of their durations. */
  readonly failedTimeMs: number;
  /** Median and p95 duration of the failed calls (NaN without any). */
  readonly failedP50Ms: number;
  readonly failedP95Ms: number;
  /** Calls answered (success or error) by the end of the window; all calls without a window. */
  readonly completedInWindow: number;
  /** Successful calls that ended in the window, per minute of window per run; null without a window. */
  readonly answeredPerMinute: number | null;
}

/** The run's window: calls ending after `durationMs` (ms since the start of their run) are outside it. */
export interface MetricsWindow {
  readonly durationMs: number;
  /** How many runs (seeds) the calls pool. */
  readonly runs: number;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** The failed calls' time, and what was answered within the window. */
function costOfFailing(calls: readonly CallTrace[], window?: MetricsWindow) {
  const failed = calls
    .filter((c) => !c.ok)
    .map((c) => c.end - c.start)
    .sort((a, b) => a - b);
  const inWindow = window ? calls.filter((c) => c.end <= window.durationMs) : calls;
  const answered = inWindow.filter((c) => c.ok).length;
  return {
    failedCalls: failed.length,
    failedTimeMs: failed.reduce((a, b) => a + b, 0),
    failedP50Ms: percentile(failed, 50),
    failedP95Ms: percentile(failed, 95),
    completedInWindow: inWindow.length,
    answeredPerMinute:
      window && window.durationMs > 0 && window.runs > 0
        ? answered / window.runs / (window.durationMs / 60_000)
        : null,
  };
}

export function computeMetrics(calls: readonly CallTrace[], window?: MetricsWindow): Metrics {
  let succeeded = 0;
  let requests = 0;
  let retries = 0;
  let successfulRetries = 0;
  let wastedTimeMs = 0;
  let requestsWhileDown = 0;
  let firstRequestsWhileDown = 0;
  let requestsRateLimited = 0;
  let requestsOverloaded = 0;
  let failedWithoutRequest = 0;
  let deadlineExceeded = 0;
  let nonRetryableFailures = 0;
  let nrDuration = 0;
  let nrAttempt = 0;
  let frCalls = 0;
  let frDuration = 0;
  let frAttempt = 0;
  let soCalls = 0;
  let soDuration = 0;
  let soAttempt = 0;
  const durations: number[] = [];
  for (const call of calls) {
    if (call.ok) succeeded++;
    if (call.endedBy === 'deadline') deadlineExceeded++;
    if (!call.ok && call.attempts.length === 0) failedWithoutRequest++;
    durations.push(call.end - call.start);
    requests += call.attempts.length;
    let previousEnd = Number.NaN;
    for (const attempt of call.attempts) {
      if (attempt.down) requestsWhileDown++;
      if (attempt.down && attempt.k === 1) firstRequestsWhileDown++;
      if (attempt.fault === 'rate_limited_429') requestsRateLimited++;
      if (attempt.overloaded) requestsOverloaded++;
      if (attempt.k > 1) {
        retries++;
        if (attempt.ok) successfulRetries++;
        else wastedTimeMs += attempt.end - (Number.isNaN(previousEnd) ? attempt.start : previousEnd);
      }
      previousEnd = attempt.end;
    }
    const last = call.attempts[call.attempts.length - 1];
    if (!call.ok && last && !last.ok && !last.aborted && last.transient === false) {
      nonRetryableFailures++;
      nrDuration += call.end - call.start;
      nrAttempt += last.end - last.start;
      const first = call.attempts[0]!;
      if (first.transient === false && !first.aborted) {
        frCalls++;
        frDuration += call.end - call.start;
        frAttempt += first.end - first.start;
        if (first.start === call.start) {
          soCalls++;
          soDuration += call.end - call.start;
          soAttempt += first.end - first.start;
        }
      }
    }
  }
  durations.sort((a, b) => a - b);
  const mttf = nonRetryableFailures ? nrDuration / nonRetryableFailures : null;
  const single = nonRetryableFailures ? nrAttempt / nonRetryableFailures : null;
  return {
    calls: calls.length,
    succeeded,
    successRate: calls.length ? succeeded / calls.length : Number.NaN,
    requests,
    retries,
    successfulRetries,
    wastedRetries: retries - successfulRetries,
    retryEfficiency: retries ? successfulRetries / retries : null,
    wastedTimeMs,
    requestsWhileDown,
    firstRequestsWhileDown,
    requestsRateLimited,
    requestsOverloaded,
    failedWithoutRequest,
    deadlineExceeded,
    p50Ms: percentile(durations, 50),
    p99Ms: percentile(durations, 99),
    nonRetryableFailures,
    mttfNonRetryableMs: mttf,
    singleAttemptMs: single,
    mttfRatio: mttf !== null && single ? mttf / single : null,
    mttfFirstRequestRatio: frCalls && frAttempt ? frDuration / frAttempt : null,
    mttfSentAtOnceRatio: soCalls && soAttempt ? soDuration / soAttempt : null,
    ...costOfFailing(calls, window),
  };
}

/** How many calls ended each way ("success", "ResilienceError(non_retryable)", "deadline"...), most first. */
export function outcomeBreakdown(calls: readonly CallTrace[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(call.outcome, (counts.get(call.outcome) ?? 0) + 1);
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]));
}

/** Why retries were wasted and why non-retryable failures took longer than one attempt: the "why" of a miss. */
export interface Diagnosis {
  /** Failed retries by what they met. */
  readonly wastedRetries: {
    /** The call's own permanent fault, hidden behind a transient first failure: no policy can know it. */
    readonly permanentFaultRevealed: number;
    /** A permanent fault retried again (the previous request had already returned it). */
    readonly permanentFaultRetried: number;
    readonly endpointStillDown: number;
    readonly stillRateLimited: number;
    /** Rejected by an overloaded server. */
    readonly overloaded: number;
    /** Another independent transient fault (or a timeout). */
    readonly transientAgain: number;
    /** Cut by the caller's deadline. */
    readonly cutByDeadline: number;
    /** Median wait between the end of the previous request and a wasted retry that found the endpoint down. */
    readonly medianWaitBeforeDownRetryMs: number | null;
  };
  /** Calls that ended with a non-retryable error. */
  readonly nonRetryable: {
    readonly calls: number;
    /** ...whose only request got that error at once (no wait before it). */
    readonly atOnce: number;
    /** ...that waited before their first request (an endpoint-wide Retry-After, an open breaker's queue...). */
    readonly waitedBeforeFirstRequest: number;
    readonly waitedMs: number;
    /** ...that first met transient failures (timeouts, 5xx...) and got the non-retryable error on a retry. */
    readonly afterTransientFailures: number;
    readonly transientMs: number;
    /** ...that kept retrying the non-retryable error (policies without classification). */
    readonly retriedNonRetryable: number;
    readonly retriedMs: number;
  };
}

export function diagnose(calls: readonly CallTrace[]): Diagnosis {
  const w = {
    permanentFaultRevealed: 0,
    permanentFaultRetried: 0,
    endpointStillDown: 0,
    stillRateLimited: 0,
    overloaded: 0,
    transientAgain: 0,
    cutByDeadline: 0,
  };
  const downWaits: number[] = [];
  const n = {
    calls: 0,
    atOnce: 0,
    waitedBeforeFirstRequest: 0,
    waitedMs: 0,
    afterTransientFailures: 0,
    transientMs: 0,
    retriedNonRetryable: 0,
    retriedMs: 0,
  };
  for (const call of calls) {
    for (const a of call.attempts) {
      if (a.k === 1 || a.ok) continue;
      if (a.aborted) w.cutByDeadline++;
      else if (a.transient === false) {
        if (call.attempts[a.k - 2]?.transient === false) w.permanentFaultRetried++;
        else w.permanentFaultRevealed++;
      } else if (a.down) {
        w.endpointStillDown++;
        const previous = call.attempts[a.k - 2];
        if (previous) downWaits.push(a.start - previous.end);
      } else if (a.fault === 'rate_limited_429') w.stillRateLimited++;
      else if (a.overloaded) w.overloaded++;
      else w.transientAgain++;
    }
    const last = call.attempts[call.attempts.length - 1];
    if (call.ok || !last || last.ok || last.aborted || last.transient !== false) continue;
    n.calls++;
    const first = call.attempts.findIndex((a) => a.transient === false);
    const firstNr = call.attempts[first]!;
    const duration = call.end - call.start;
    if (first > 0) {
      n.afterTransientFailures++;
      n.transientMs += firstNr.start - call.start;
    } else if (call.attempts[0]!.start > call.start) {
      n.waitedBeforeFirstRequest++;
      n.waitedMs += call.attempts[0]!.start - call.start;
    }
    if (call.attempts.length > first + 1) {
      n.retriedNonRetryable++;
      n.retriedMs += duration - (firstNr.end - call.start);
    } else if (first === 0 && call.attempts[0]!.start === call.start) {
      n.atOnce++;
    }
  }
  downWaits.sort((a, b) => a - b);
  return {
    wastedRetries: { ...w, medianWaitBeforeDownRetryMs: downWaits.length ? percentile(downWaits, 50) : null },
    nonRetryable: n,
  };
}
