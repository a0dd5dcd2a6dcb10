import { runAttempt, type TimeLimit } from './attempt/runAttempt.js';
import type { AttemptContext, CallOptions } from './call/CallOptions.js';
import { validateCallOptions } from './call/validateCallOptions.js';
import type { Classification } from './classify/Classification.js';
import { classifyError } from './classify/classifyError.js';
import type { BreakerSnapshot } from './decide/BreakerState.js';
import { backoffDelay } from './decide/backoffDelay.js';
import { decide } from './decide/decide.js';
import { EndpointRegistry } from './decide/EndpointRegistry.js';
import { AttemptTimeoutError } from './errors/AttemptTimeoutError.js';
import { ResilienceError } from './errors/ResilienceError.js';
import { createExperiment } from './experiment/createExperiment.js';
import { type ExperimentOptions, hasExperiment } from './experiment/ExperimentOptions.js';
import { type ResilienceOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { noopRecorder } from './record/noopRecorder.js';
import type { Recorder } from './record/Recorder.js';
import type { CallRef, ResilienceEvent } from './record/ResilienceEvent.js';

export interface Resilience {
  /**
   * Runs `fn` with classification, retries, the endpoint's retry budget and circuit breaker. Resolves with
   * `fn`'s value; rejects with a `ResilienceError` carrying the last classification, the attempts made and
   * the original error as `cause`.
   */
  execute<T>(fn: (context: AttemptContext) => T | Promise<T>, options?: CallOptions): Promise<T>;
  /** A snapshot of every tracked endpoint's breaker. */
  breakers(): BreakerSnapshot[];
  /** The resolved options, defaults included. */
  readonly options: Readonly<ResolvedOptions>;
}

let nextCallId = 1;
const noAttributes: Readonly<Record<string, string>> = Object.freeze({});

/** Creates a resilience pipeline: classify → decide → attempt → record, one loop, per-endpoint state. */
export function createResilience(options?: ResilienceOptions & ExperimentOptions): Resilience {
  if (options && hasExperiment(options)) return createExperiment(options, createResilience);
  const o = resolveOptions(options);
  const { clock } = o;
  const emit = safeRecorder(o.recorder);
  const registry = new EndpointRegistry(o, clock, (endpoint, t) =>
    emit?.({
      type: 'breaker_transition',
      endpoint: endpoint.key,
      attributes: endpoint.breaker.attributes,
      ...t,
    }),
  );
  const breakers = () => registry.snapshots();
  emit?.({ type: 'recorder_attached', breakers });

  async function execute<T>(
    fn: (context: AttemptContext) => T | Promise<T>,
    call: CallOptions = noOptions,
  ): Promise<T> {
    validateCallOptions(fn, call);
    const ref: CallRef = {
      callId: nextCallId++,
      endpoint: call.endpoint ?? 'default',
      operation: call.operation ?? 'call',
      attributes: call.attributes ?? noAttributes,
    };
    const endpoint = registry.get(ref.endpoint, call.endpointAttributes ?? noAttributes);
    const { breaker, budget, history } = endpoint;
    const maxAttempts = call.maxAttempts ?? o.maxAttempts;
    const idempotent = call.idempotent ?? true;
    const start = clock.now();
    const timeoutMs = call.timeoutMs ?? o.timeoutMs;
    const deadline = timeoutMs === undefined ? undefined : start + timeoutMs;
    const signal = call.signal;
    // Without a deadline or a recorder, the success path reads the clock once: durations are not needed.
    const timed = deadline !== undefined || emit !== undefined;
    emit?.({ type: 'call_started', ...ref, time: start });
    budget.onCall(start);

    let attempt = 0;
    let lastError: unknown;
    let last: Classification | undefined;
    let waitedMs = 0;
    let previousDelay = 0;
    let wastedRetries = 0;
    let wastedTimeMs = 0;
    let probing = false;

    const finish = (
      outcome: 'failure' | 'rejected',
      reason: ResilienceError['reason'],
      c: Classification,
    ) => {
      const now = clock.now();
      // The breaker counts calls, not attempts: a call that failed for a reason that says the endpoint is
      // unhealthy counts once, when it ends (a probe counted already), so that the first failures of calls in
      // flight during a blip, which their retries then get through, do not open it.
      if (outcome === 'failure' && !probing && countsForHealth(c)) breaker.onFailure(now, false, ref.callId);
      emit?.({
        type: 'call_finished',
        ...ref,
        time: now,
        durationMs: now - start,
        outcome,
        attempts: attempt,
        classification: c,
        wastedRetries,
        wastedTimeMs,
      });
      return new ResilienceError(c, attempt, reason, lastError);
    };

    for (;;) {
      // Admission: the endpoint's announced Retry-After, then its breaker.
      let now = attempt === 0 ? start : clock.now();
      const announced = endpoint.retryAfterUntil - now;
      if (announced > 0) {
        if (deadline !== undefined && now + announced > deadline) {
          const c = rateLimited(announced);
          if (attempt === 0) throw finish('rejected', 'deadline', c);
          throw finish('failure', 'deadline', last ?? c);
        }
        try {
          await clock.sleep(announced, signal);
        } catch (error) {
          lastError = error;
          throw finish(attempt === 0 ? 'rejected' : 'failure', 'aborted', classify(error));
        }
        waitedMs += announced;
        now = clock.now();
      }
      const admission = breaker.admit(now);
      if (!admission.admitted) {
        const open: Classification = {
          class: 'conditional',
          type: 'circuit_open',
          execution: 'not_sent',
          retryAfterMs: admission.retryAfterMs,
          source: 'circuit_breaker',
          message: `circuit breaker for '${ref.endpoint}' is ${breaker.state}`,
          healthNeutral: true,
        };
        if (attempt === 0) {
          lastError = new Error(open.message);
          throw finish('rejected', 'circuit_open', open);
        }
        throw finish('failure', 'circuit_open', last ?? open);
      }

      attempt++;
      const traceContext: Record<string, string> = emit ? {} : noTraceContext;
      emit?.({ type: 'attempt_started', ...ref, time: now, attempt, traceContext });
      const limit = attemptLimit(
        admission.probe,
        deadline === undefined ? undefined : deadline - now,
        timeoutMs,
      );
      const attemptStart = now;
      const outcome = await runAttempt(fn, attempt, traceContext, signal, limit, clock);
      now = outcome.ok && !timed && attempt === 1 ? start : clock.now();
      const durationMs = now - attemptStart;

      if (outcome.ok) {
        breaker.onSuccess(now, admission.probe, ref.callId);
        history.onSuccess(now, attemptStart, timed ? durationMs : undefined);
        emit?.({ type: 'attempt_finished', ...ref, time: now, attempt, durationMs, outcome: 'success' });
        emit?.({
          type: 'call_finished',
          ...ref,
          time: now,
          durationMs: now - start,
          outcome: 'success',
          attempts: attempt,
          wastedRetries,
          wastedTimeMs,
        });
        return outcome.value;
      }

      lastError = outcome.error;
      const c = classify(outcome.error, now);
      last = c;
      emit?.({
        type: 'attempt_finished',
        ...ref,
        time: now,
        attempt,
        durationMs,
        outcome: 'failure',
        classification: c,
      });
      probing = admission.probe;
      if (probing) {
        if (countsForHealth(c)) breaker.onFailure(now, true, ref.callId);
        else breaker.onNeutral(true);
      }
      if (countsForHealth(c)) history.onFailure(now);
      if (c.type === 'rate_limited' && c.retryAfterMs !== undefined) {
        endpoint.retryAfterUntil = Math.max(endpoint.retryAfterUntil, now + c.retryAfterMs);
      }
      if (attempt > 1) {
        wastedRetries++;
        wastedTimeMs += durationMs + waitedMs;
      }

      const backoffMs = backoffDelay(attempt, previousDelay, o, clock.random);
      const state = breaker.snapshot(now);
      const decision = decide({
        classification: c,
        attempt,
        maxAttempts,
        idempotent,
        aborted: call.signal?.aborted === true,
        now,
        deadline,
        backoffMs,
        expectedRecoveryMs: o.adaptiveBackoff ? history.expectedRecoveryMs(now) : 0,
        expectedLatencyMs: o.adaptiveBackoff ? history.expectedLatencyMs() : 0,
        endpointRetryAfterMs: Math.max(0, endpoint.retryAfterUntil - now),
        retryAfterMarginMs: o.retryAfterMarginMs,
        retryAfterMaxMs: o.retryAfterMaxMs,
        canRecover: call.recover?.[c.type] !== undefined,
        breakerOpenMs: state.openUntil === undefined ? 0 : Math.max(0, state.openUntil - now),
        budgetAvailable: budget.canRetry(now),
      });
      if (decision.kind === 'budget_exhausted') {
        emit?.({ type: 'budget_refused', ...ref, time: now, attempt: attempt + 1, classification: c });
      }
      const delayMs = 'delayMs' in decision ? decision.delayMs : 0;
      emit?.({
        type: 'failure_classified',
        ...ref,
        time: now,
        attempt,
        classification: c,
        decision: decision.kind,
        detail: decision,
        delayMs,
      });
      if (decision.kind === 'give_up') throw finish('failure', decision.reason, c);
      if (decision.kind === 'budget_exhausted' || decision.kind === 'circuit_open') {
        throw finish('failure', decision.kind, c);
      }

      budget.spend(now);
      emit?.({
        type: 'retry_scheduled',
        ...ref,
        time: now,
        attempt: attempt + 1,
        delayMs,
        classification: c,
      });
      const waitStart = now;
      try {
        if (delayMs > 0) await clock.sleep(delayMs, signal);
        const recover = decision.kind === 'reconnect' ? call.recover?.[c.type] : undefined;
        if (recover) await recover({ classification: c, attempt, signal: signal ?? neverAborted });
      } catch (error) {
        lastError = error;
        throw finish('failure', signal?.aborted ? 'aborted' : 'condition_unmet', classify(error));
      }
      previousDelay = delayMs;
      waitedMs = clock.now() - waitStart;
    }

    function classify(error: unknown, now = clock.now()): Classification {
      return classifyError(error, {
        endpoint: ref.endpoint,
        operation: ref.operation,
        rules: call.rules ? [...o.rules, ...call.rules] : o.rules,
        ...(call.signal ? { signal: call.signal } : {}),
        now,
      });
    }
  }

  /** An attempt's time limit: its own, a probe's, or what is left of the call's deadline, whichever ends first. */
  function attemptLimit(probe: boolean, leftMs: number | undefined, timeoutMs: number | undefined) {
    let limit: TimeLimit | undefined;
    const consider = (ms: number | undefined, reason: () => unknown) => {
      if (ms !== undefined && (limit === undefined || ms < limit.ms)) limit = { ms, reason };
    };
    consider(o.attemptTimeoutMs, () => new AttemptTimeoutError(o.attemptTimeoutMs ?? 0));
    if (probe) consider(o.breakerProbeTimeoutMs, () => new AttemptTimeoutError(o.breakerProbeTimeoutMs));
    consider(leftMs, () => new AttemptTimeoutError(timeoutMs ?? 0, 'call'));
    return limit;
  }

  return { execute, breakers, options: o };
}

const neverAborted = new AbortController().signal;
const noOptions: CallOptions = Object.freeze({});
const noTraceContext: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** Whether a failure says the endpoint is unhealthy (for its breaker and its recovery history). */
const countsForHealth = (c: Classification) => c.class !== 'non_retryable' && c.healthNeutral !== true;

const rateLimited = (retryAfterMs: number): Classification => ({
  class: 'conditional',
  type: 'rate_limited',
  execution: 'not_sent',
  retryAfterMs,
  source: 'endpoint.retry_after',
  message: `endpoint asked to wait ${Math.ceil(retryAfterMs)} ms (Retry-After), past the call's deadline`,
  healthNeutral: true,
});

/** The recorder behind a guard: a throwing recorder is reported once and never breaks a call. */
function safeRecorder(recorder: Recorder): ((event: ResilienceEvent) => void) | undefined {
  if (recorder === noopRecorder) return undefined;
  let warned = false;
  return (event) => {
    try {
      recorder.record(event);
    } catch (error) {
      if (!warned) {
        warned = true;
        console.warn('[mcp-resilience] the recorder threw; its further errors are ignored:', error);
      }
    }
  };
}
