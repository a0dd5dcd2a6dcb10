import type { DeadlineWatch } from '../attempt/DeadlineWatch.js';
import type { Outcome } from '../attempt/Outcome.js';
import { runAttempt, type TimeLimit } from '../attempt/runAttempt.js';
import type { Clock } from '../Clock.js';
import type { Classification } from '../classify/Classification.js';
import { classifyError } from '../classify/classifyError.js';
import { backoffDelay } from '../decide/backoffDelay.js';
import type { Decision } from '../decide/Decision.js';
import { decide } from '../decide/decide.js';
import { AttemptTimeoutError } from '../errors/AttemptTimeoutError.js';
import { ResilienceError } from '../errors/ResilienceError.js';
import type { GateVerdict } from '../health/BreakerGate.js';
import type { Endpoint } from '../health/Endpoint.js';
import type { ResolvedOptions } from '../options.js';
import type { BreakerWaitOutcome, CallRef, ResilienceEvent } from '../record/ResilienceEvent.js';
import type { AttemptContext, CallOptions } from './CallOptions.js';

/** What every call of one resilience instance shares. */
export interface Pipeline {
  readonly options: ResolvedOptions;
  readonly clock: Clock;
  /** The guarded recorder; undefined without one (nothing is built for it then). */
  readonly emit: ((event: ResilienceEvent) => void) | undefined;
  readonly watch: DeadlineWatch;
}

type Fn<T> = (context: AttemptContext) => T | Promise<T>;
type Admitted = Extract<GateVerdict, { kind: 'admitted' }>;

const noTraceContext: Record<string, string> = Object.freeze({}) as Record<string, string>;
const neverAborted = new AbortController().signal;

/**
 * One logical call: admitted by the endpoint's gate, then attempt → classify → decide → record, until an
 * attempt succeeds or a decision stops it. Its steps return plain data; only `run`, the edge, throws.
 */
export class Call<T> {
  private attempt = 0;
  private lastError: unknown;
  private last: Classification | undefined;
  /** Time between the previous attempt's end and this attempt's start (backoff, recovery, gate). */
  private waitedMs = 0;
  private previousDelay = 0;
  private wastedRetries = 0;
  private wastedTimeMs = 0;
  private breakerWaitMs = 0;
  /** The last attempt was a probe, already counted by the breaker. */
  private probing = false;
  /** This call's attempts that were sent as probes and failed: they cost it no attempt (beyond its first). */
  private failedProbes = 0;
  private readonly deadline: number | undefined;
  /** Without a deadline or a recorder, the success path reads the clock once: durations are not needed. */
  private readonly timed: boolean;

  constructor(
    private readonly p: Pipeline,
    private readonly fn: Fn<T>,
    private readonly call: CallOptions,
    private readonly ref: CallRef,
    private readonly endpoint: Endpoint,
    private readonly start: number,
    private readonly timeoutMs: number | undefined,
  ) {
    this.deadline = timeoutMs === undefined ? undefined : start + timeoutMs;
    this.timed = this.deadline !== undefined || p.emit !== undefined;
  }

  async run(): Promise<T> {
    const { clock, emit } = this.p;
    const { endpoint } = this;
    for (let now = this.start; ; now = clock.now()) {
      // 1. admission: the endpoint's announced Retry-After, then its breaker's gate
      if (endpoint.retryAfterMs(now) > 0) {
        const refused = await this.waitAnnounced(now);
        if (refused) throw refused;
        now = clock.now();
      }
      let verdict = endpoint.pass({
        now,
        limitAt: this.waitLimit(),
        signal: this.call.signal,
        retryOf: this.attempt > 0 ? this.ref.callId : undefined,
        defaultLimit: this.deadline === undefined,
        callStart: this.start,
      });
      if (verdict instanceof Promise) {
        verdict = await this.waitAtGate(verdict, now);
        now = clock.now();
      }
      if (verdict.kind !== 'admitted') throw this.refused(verdict);

      // 2. attempt
      const attempt = ++this.attempt;
      const traceContext: Record<string, string> = emit ? {} : noTraceContext;
      emit?.({ type: 'attempt_started', ...this.ref, time: now, attempt, traceContext });
      const outcome = await runAttempt(
        this.fn,
        attempt,
        traceContext,
        this.call.signal,
        this.limit(verdict.probe, now),
        this.p.watch,
      );
      const end = outcome.ok && !this.timed && attempt === 1 ? this.start : clock.now();
      if (outcome.ok) return this.succeeded(outcome.value, verdict, now, end);

      // 3. classify, 4. decide, 5. record
      const decision = this.failed(outcome, verdict, now, end);
      if (decision.kind === 'give_up') throw this.finish('failure', decision.reason, this.last!);
      if (decision.kind === 'budget_exhausted') throw this.finish('failure', decision.kind, this.last!);
      if (decision.kind === 'circuit_open') {
        throw this.finish('failure', decision.kind, this.last!, true, decision.retryAfterMs);
      }
      const stopped = await this.pause(decision, end);
      if (stopped) throw stopped;
    }
  }

  /** The attempt succeeded: the endpoint's health learns it, the call ends. */
  private succeeded(value: T, verdict: Admitted, attemptStart: number, now: number): T {
    const facts = { callId: this.ref.callId, start: attemptStart, retry: this.attempt > 1 };
    this.endpoint.attemptSucceeded(verdict, facts, now, this.timed);
    const { emit } = this.p;
    if (emit) {
      const { attempt } = this;
      emit({
        type: 'attempt_finished',
        ...this.ref,
        time: now,
        attempt,
        durationMs: now - attemptStart,
        outcome: 'success',
      });
      emit({
        type: 'call_finished',
        ...this.ref,
        time: now,
        durationMs: now - this.start,
        outcome: 'success',
        attempts: attempt,
        wastedRetries: this.wastedRetries,
        wastedTimeMs: this.wastedTimeMs,
        breakerWaitMs: this.breakerWaitMs,
      });
    }
    return value;
  }

  /** The attempt failed: classify it, let the endpoint's health learn it, decide what next, record both. */
  private failed(outcome: Outcome<T> & { ok: false }, verdict: Admitted, attemptStart: number, now: number) {
    const { endpoint } = this;
    const { emit } = this.p;
    const { attempt } = this;
    this.lastError = outcome.error;
    const c = this.classify(outcome.error, now);
    this.last = c;
    const durationMs = now - attemptStart;
    emit?.({
      type: 'attempt_finished',
      ...this.ref,
      time: now,
      attempt,
      durationMs,
      outcome: 'failure',
      classification: c,
    });
    const facts = { callId: this.ref.callId, start: attemptStart, retry: attempt > 1 };
    const unhealthy = endpoint.attemptFailed(verdict, c, facts, now);
    this.probing = verdict.probe && unhealthy;
    if (this.probing) this.failedProbes++;
    if (attempt > 1) {
      this.wastedRetries++;
      this.wastedTimeMs += durationMs + this.waitedMs;
    }

    const decision = this.decideNext(c, now);
    if (decision.kind === 'budget_exhausted') {
      emit?.({ type: 'budget_refused', ...this.ref, time: now, attempt: attempt + 1, classification: c });
    }
    const delayMs = 'delayMs' in decision ? decision.delayMs : 0;
    emit?.({
      type: 'failure_classified',
      ...this.ref,
      time: now,
      attempt,
      classification: c,
      decision: decision.kind,
      detail: decision,
      delayMs,
    });
    if (decision.kind === 'retry' || decision.kind === 'wait' || decision.kind === 'reconnect') {
      if (!this.probing) endpoint.retryScheduled(now);
      emit?.({
        type: 'retry_scheduled',
        ...this.ref,
        time: now,
        attempt: attempt + 1,
        delayMs,
        classification: c,
      });
    }
    return decision;
  }

  /** What `decide` says after the failed attempt classified `c`, from the call's and the endpoint's state. */
  private decideNext(c: Classification, now: number): Decision {
    const { endpoint } = this;
    const o = this.p.options;
    const limitAt = this.waitLimit();
    const defaultLimit = this.deadline === undefined;
    const probeAt = endpoint.probeIfWaiting(now, { start: this.start, limitAt, defaultLimit });
    // after a failed probe the call goes back to the gate at once: the breaker's schedule spaces the next request;
    // a call without a deadline that would wait there alone goes by its next probe at the latest (its own backoff
    // does not make it later than the naive loop's retry, see `loneProbeAt`)
    const backoff = this.probing
      ? 0
      : backoffDelay(this.attempt, this.previousDelay, o, () => this.p.clock.random());
    const lone = defaultLimit && probeAt !== undefined && endpoint.waiting === 0;
    const backoffMs = lone ? Math.min(backoff, Math.max(0, probeAt - now)) : backoff;
    return decide({
      classification: c,
      // a failed probe is the breaker's request: it costs the call no attempt (beyond its first one)
      attempt: Math.max(1, this.attempt - this.failedProbes),
      maxAttempts: this.call.maxAttempts ?? o.maxAttempts,
      idempotent: this.call.idempotent ?? true,
      aborted: this.call.signal?.aborted === true,
      now,
      deadline: this.deadline,
      backoffMs,
      expectedRecoveryMs: endpoint.expectedRecoveryMs(now),
      naiveLoop: defaultLimit ? { start: this.start, spanMs: limitAt - this.start } : undefined,
      expectedLatencyMs: endpoint.expectedLatencyMs(),
      endpointRetryAfterMs: endpoint.retryAfterMs(now),
      retryAfterMarginMs: o.retryAfterMarginMs,
      retryAfterMaxMs: o.retryAfterMaxMs,
      canRecover: this.call.recover?.[c.type] !== undefined,
      breakerOpenMs: probeAt === undefined ? 0 : Math.max(0, probeAt - now),
      breakerWait: o.breakerWait,
      recoveryLikely: endpoint.recoveryLikely(now, limitAt, defaultLimit),
      // a return to the gate after a failed probe is not a retry of the call's: no budget spent
      budgetAvailable: this.probing || endpoint.canRetry(now),
    });
  }

  /** Waits out a retry's delay and runs the recovery it needs; returns the error that stops the call, if any. */
  private async pause(
    decision: Extract<Decision, { delayMs: number }>,
    now: number,
  ): Promise<ResilienceError | undefined> {
    const { clock } = this.p;
    const { signal } = this.call;
    const c = this.last!;
    try {
      if (decision.delayMs > 0) await clock.sleep(decision.delayMs, signal);
      const recover = decision.kind === 'reconnect' ? this.call.recover?.[c.type] : undefined;
      if (recover) {
        await recover({ classification: c, attempt: this.attempt, signal: signal ?? neverAborted });
      }
    } catch (error) {
      this.lastError = error;
      return this.finish('failure', signal?.aborted ? 'aborted' : 'condition_unmet', this.classify(error));
    }
    this.previousDelay = decision.delayMs;
    this.waitedMs = clock.now() - now;
    return undefined;
  }

  /** Waits for the endpoint's announced `Retry-After`; returns the error that stops the call, if any. */
  private async waitAnnounced(now: number): Promise<ResilienceError | undefined> {
    const announced = this.endpoint.retryAfterMs(now);
    const first = this.attempt === 0;
    if (this.deadline !== undefined && now + announced > this.deadline) {
      const c = rateLimited(announced);
      return first
        ? this.finish('rejected', 'deadline', c)
        : this.finish('failure', 'deadline', this.last ?? c);
    }
    try {
      await this.p.clock.sleep(announced, this.call.signal);
    } catch (error) {
      this.lastError = error;
      return this.finish(first ? 'rejected' : 'failure', 'aborted', this.classify(error));
    }
    this.waitedMs += announced;
    return undefined;
  }

  /** Records a wait at the gate around `pending`. */
  private async waitAtGate(pending: Promise<GateVerdict>, now: number): Promise<GateVerdict> {
    const { emit, clock } = this.p;
    const endpointAttributes = this.endpoint.attributes;
    const attempt = this.attempt + 1;
    emit?.({
      type: 'breaker_wait_started',
      ...this.ref,
      time: now,
      attempt,
      endpointAttributes,
      waiting: this.endpoint.waiting,
    });
    const verdict = await pending;
    const end = clock.now();
    this.breakerWaitMs += end - now;
    this.waitedMs += end - now;
    emit?.({
      type: 'breaker_wait_finished',
      ...this.ref,
      time: end,
      attempt,
      durationMs: end - now,
      outcome: waitOutcome(verdict),
      endpointAttributes,
    });
    return verdict;
  }

  /** The error for a call the gate did not let through. */
  private refused(verdict: Exclude<GateVerdict, Admitted>): ResilienceError {
    const first = this.attempt === 0;
    const name = this.ref.endpoint;
    if (verdict.kind === 'aborted') {
      this.lastError = verdict.reason;
      return this.finish(first ? 'rejected' : 'failure', 'aborted', this.classify(verdict.reason), false);
    }
    if (verdict.kind === 'shed') {
      this.p.emit?.({
        type: 'breaker_wait_finished',
        ...this.ref,
        time: this.p.clock.now(),
        attempt: this.attempt + 1,
        durationMs: 0,
        outcome: 'shed',
        endpointAttributes: this.endpoint.attributes,
      });
    }
    const open: Classification = {
      class: 'conditional',
      type: 'circuit_open',
      execution: 'not_sent',
      ...(verdict.kind === 'shed' ? {} : { retryAfterMs: verdict.retryAfterMs }),
      source:
        verdict.kind === 'shed'
          ? 'circuit_breaker.queue'
          : this.endpoint.breaker.fleetVerdict
            ? 'circuit_breaker.fleet'
            : 'circuit_breaker',
      message:
        verdict.kind === 'shed'
          ? `circuit breaker for '${name}' is ${this.endpoint.state} and ${verdict.waiting} calls already wait for it`
          : `circuit breaker for '${name}' is ${this.endpoint.state}`,
      healthNeutral: true,
    };
    const reason = verdict.kind === 'shed' ? 'shed' : 'circuit_open';
    const retryAfterMs = verdict.kind === 'shed' ? undefined : verdict.retryAfterMs;
    if (first) {
      this.lastError = new Error(open.message);
      return this.finish('rejected', reason, open, true, retryAfterMs);
    }
    return this.finish('failure', reason, this.last ?? open, false, retryAfterMs);
  }

  /** Ends the call without success: records it and returns the error to throw. */
  private finish(
    outcome: 'failure' | 'rejected',
    reason: ResilienceError['reason'],
    c: Classification,
    afterAttempt = true,
    retryAfterMs?: number,
  ): ResilienceError {
    const now = this.p.clock.now();
    // The failure rate counts calls, not attempts: a call that failed for a reason that says the endpoint is
    // unhealthy counts once, when it ends (a probe counted already). A call the gate stopped says nothing new.
    if (outcome === 'failure' && afterAttempt && !this.probing) {
      this.endpoint.callFailed(c, this.ref.callId, now);
    }
    this.p.emit?.({
      type: 'call_finished',
      ...this.ref,
      time: now,
      durationMs: now - this.start,
      outcome,
      attempts: this.attempt,
      classification: c,
      wastedRetries: this.wastedRetries,
      wastedTimeMs: this.wastedTimeMs,
      breakerWaitMs: this.breakerWaitMs,
      reason,
    });
    return new ResilienceError(c, this.attempt, reason, this.lastError, retryAfterMs);
  }

  /**
   * The last moment a release from the gate is still of use: the deadline minus an attempt's usual duration, or,
   * for a call without a deadline, `breakerWaitLimitMs` from its start (the default limit).
   */
  private waitLimit(): number {
    if (this.deadline === undefined) return this.start + this.p.options.breakerWaitLimitMs;
    return this.deadline - this.endpoint.expectedLatencyMs();
  }

  /** An attempt's time limit: its own, a probe's, or the call's deadline, whichever ends first. */
  private limit(probe: boolean, now: number): TimeLimit | undefined {
    const o = this.p.options;
    let limit: TimeLimit | undefined;
    const consider = (ms: number | undefined, reason: () => unknown) => {
      if (ms !== undefined && (limit === undefined || now + ms < limit.at)) limit = { at: now + ms, reason };
    };
    if (o.attemptTimeoutMs !== undefined) {
      const ms = o.attemptTimeoutMs;
      consider(ms, () => new AttemptTimeoutError(ms));
    }
    if (probe) consider(o.breakerProbeTimeoutMs, () => new AttemptTimeoutError(o.breakerProbeTimeoutMs));
    if (this.deadline !== undefined) {
      const timeoutMs = this.timeoutMs ?? 0;
      consider(this.deadline - now, () => new AttemptTimeoutError(timeoutMs, 'call'));
    }
    return limit;
  }

  private classify(error: unknown, now = this.p.clock.now()): Classification {
    const { call } = this;
    const rules = this.p.options.rules;
    return classifyError(error, {
      endpoint: this.ref.endpoint,
      operation: this.ref.operation,
      rules: call.rules ? [...rules, ...call.rules] : rules,
      ...(call.signal ? { signal: call.signal } : {}),
      now,
    });
  }
}

const waitOutcome = (verdict: GateVerdict): BreakerWaitOutcome =>
  verdict.kind === 'admitted' ? 'released' : verdict.kind === 'aborted' ? 'aborted' : 'timeout';

const rateLimited = (retryAfterMs: number): Classification => ({
  class: 'conditional',
  type: 'rate_limited',
  execution: 'not_sent',
  retryAfterMs,
  source: 'endpoint.retry_after',
  message: `endpoint asked to wait ${Math.ceil(retryAfterMs)} ms (Retry-After), past the call's deadline`,
  healthNeutral: true,
});
