import { runAttempt } from './attempt/runAttempt.js';
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
export function createResilience(options?: ResilienceOptions): Resilience {
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
    const { signal, stop } = callSignal(call.signal, timeoutMs);
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
    let countedFailure = false;

    const finish = (
      outcome: 'failure' | 'rejected',
      reason: ResilienceError['reason'],
      c: Classification,
    ) => {
      const now = clock.now();
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

    try {
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
        const timeLimit = admission.probe
          ? Math.min(o.attemptTimeoutMs ?? Number.POSITIVE_INFINITY, o.breakerProbeTimeoutMs)
          : o.attemptTimeoutMs;
        const attemptStart = now;
        const outcome = await runAttempt(fn, attempt, traceContext, signal, timeLimit, clock);
        now = outcome.ok && !timed && attempt === 1 ? start : clock.now();
        const durationMs = now - attemptStart;

        if (outcome.ok) {
          breaker.onSuccess(now, admission.probe, ref.callId);
          history.onSuccess(now, timed ? durationMs : undefined);
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
        // A call counts once for the breaker (its retries are the same evidence again); a probe always counts.
        if (c.class === 'non_retryable' || c.healthNeutral || (countedFailure && !admission.probe)) {
          breaker.onNeutral(admission.probe);
        } else {
          breaker.onFailure(now, admission.probe, ref.callId);
          countedFailure = true;
        }
        if (c.class === 'retryable' && !c.healthNeutral) history.onFailure(now);
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
          const reason = !signal?.aborted ? 'condition_unmet' : call.signal?.aborted ? 'aborted' : 'deadline';
          throw finish('failure', reason, classify(error));
        }
        previousDelay = delayMs;
        waitedMs = clock.now() - waitStart;
      }
    } finally {
      stop();
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

  /** The call's own signal: the caller's, plus the deadline. */
  function callSignal(caller: AbortSignal | undefined, timeoutMs: number | undefined) {
    if (timeoutMs === undefined) return caller ? { signal: caller, stop: noop } : noSignal;
    const controller = new AbortController();
    const stopTimer = new AbortController();
    const abort = () => controller.abort(caller?.reason);
    if (caller?.aborted) abort();
    else caller?.addEventListener('abort', abort, { once: true });
    clock.sleep(timeoutMs, stopTimer.signal).then(
      () => controller.abort(new AttemptTimeoutError(timeoutMs, 'call')),
      () => {},
    );
    return {
      signal: controller.signal,
      stop: () => {
        stopTimer.abort();
        caller?.removeEventListener('abort', abort);
      },
    };
  }

  return { execute, breakers, options: o };
}

const neverAborted = new AbortController().signal;
const noop = () => {};
const noSignal = { signal: undefined, stop: noop };
const noOptions: CallOptions = Object.freeze({});
const noTraceContext: Record<string, string> = Object.freeze({}) as Record<string, string>;

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
