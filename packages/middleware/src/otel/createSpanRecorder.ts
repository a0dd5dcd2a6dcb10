import {
  type Attributes,
  type Context,
  context,
  type HrTime,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { Classification } from '../classify/Classification.js';
import type { Recorder } from '../record/Recorder.js';
import type {
  AttemptFinishedEvent,
  AttemptStartedEvent,
  BreakerTransitionEvent,
  BreakerWaitFinishedEvent,
  CallFinishedEvent,
  CallStartedEvent,
  FailureClassifiedEvent,
} from '../record/ResilienceEvent.js';
import {
  attemptSpanName,
  breakerMetricAttributes,
  callSpanAttributes,
  errorAttributes,
  errorTypeValue,
  stateValue,
} from './attributes.js';
import { injectTraceContext } from './injectTraceContext.js';
import type { ResolvedOtelRecorderOptions } from './OtelRecorderOptions.js';
import { redactMessage } from './redactMessage.js';
import {
  ATTR_ERROR_CLASS,
  ATTR_ERROR_TYPE,
  ATTR_FROM_STATE,
  ATTR_MCP_RESILIENCE_ATTEMPT,
  ATTR_MCP_RESILIENCE_ATTEMPTS,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_REASON,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_MS,
  ATTR_MCP_RESILIENCE_CLASSIFICATION_SOURCE,
  ATTR_MCP_RESILIENCE_DECISION,
  ATTR_MCP_RESILIENCE_DELAY_MS,
  ATTR_MCP_RESILIENCE_ENDPOINT,
  ATTR_MCP_RESILIENCE_ERROR_MESSAGE,
  ATTR_MCP_RESILIENCE_EXECUTION,
  ATTR_MCP_RESILIENCE_GIVE_UP_REASON,
  ATTR_MCP_RESILIENCE_HEALTH_NEUTRAL,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_RETRY_AFTER_MS,
  ATTR_MCP_RESILIENCE_WASTED_RETRIES,
  ATTR_MCP_RESILIENCE_WASTED_TIME_MS,
  ATTR_OUTCOME,
  ATTR_TO_STATE,
  DECISION_VALUES,
  EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION,
  EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT,
  EVENT_MCP_RESILIENCE_CLASSIFICATION,
  INSTRUMENTATION_SCOPE_NAME,
  OTHER_VALUE,
  SPAN_MCP_RESILIENCE_CALL,
  SPAN_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION,
  WAIT_OUTCOME_VALUES,
} from './semconv.js';

interface AttemptState {
  readonly span: Span;
  /** Set when the attempt failed: the span stays open for its classification event, then ends at this time. */
  endTime?: number;
}

interface CallState {
  readonly span: Span;
  /** The caller's context with the call span set: the parent of the attempt spans. */
  readonly context: Context;
  readonly attributes: Attributes;
  readonly attempts: Map<number, AttemptState>;
  attemptsMade: number;
  /** Whether the call met its breaker's gate (waited, or was shed). */
  gated: boolean;
}

/** Turns resilience events into the call span, its attempt spans and their events (design §4). */
export function createSpanRecorder(
  options: ResolvedOtelRecorderOptions,
  onCapReached: () => void,
): Recorder & { readonly openCalls: number } {
  const calls = new Map<number, CallState>();
  let tracer: Tracer | undefined;
  let broken = false;

  const getTracer = (): Tracer | undefined => {
    if (tracer || broken) return tracer;
    try {
      tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE_NAME);
    } catch (error) {
      broken = true; // a provider that throws here would throw on every event: stop asking
      throw error;
    }
    return tracer;
  };

  const message = (c: Classification | undefined): string | undefined =>
    options.captureMessages && typeof c?.message === 'string' && c.message !== ''
      ? redactMessage(c.message, options.messageMaxLength, options.redact)
      : undefined;

  const failStatus = (span: Span, c: Classification | undefined) => {
    span.setAttributes(errorAttributes(c));
    span.setStatus({ code: SpanStatusCode.ERROR, message: message(c) ?? errorTypeValue(c?.type) });
  };

  /** Ends every attempt span still open (a failed attempt whose classification never came). */
  const endAttempts = (call: CallState, time: number) => {
    const open = [...call.attempts.values()];
    call.attempts.clear(); // first: a span processor that throws in `end` must not leave ended spans behind
    let failure: unknown;
    for (const attempt of open) {
      try {
        attempt.span.end(at(attempt.endTime ?? time));
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  };

  const callStarted = (t: Tracer, event: CallStartedEvent) => {
    if (calls.has(event.callId)) return;
    while (calls.size >= options.maxOpenCalls) {
      const [oldestId, oldest] = calls.entries().next().value as [number, CallState];
      calls.delete(oldestId);
      onCapReached();
      try {
        endAttempts(oldest, event.time);
      } finally {
        oldest.span.end(at(event.time));
      }
    }
    // `record` runs synchronously inside `execute`: the active context is the caller's.
    const parent = context.active();
    const attributes = callSpanAttributes(event);
    const span = t.startSpan(
      SPAN_MCP_RESILIENCE_CALL,
      { kind: SpanKind.INTERNAL, startTime: at(event.time), attributes },
      parent,
    );
    calls.set(event.callId, {
      span,
      context: trace.setSpan(parent, span),
      attributes,
      attempts: new Map(),
      attemptsMade: 0,
      gated: false,
    });
  };

  const attemptStarted = (t: Tracer, event: AttemptStartedEvent) => {
    const call = calls.get(event.callId);
    if (!call) return;
    endAttempts(call, event.time);
    call.attemptsMade = Math.max(call.attemptsMade, event.attempt);
    const span = t.startSpan(
      attemptSpanName(event),
      {
        kind: SpanKind.CLIENT,
        startTime: at(event.time),
        attributes: { ...call.attributes, [ATTR_MCP_RESILIENCE_ATTEMPT]: event.attempt },
      },
      call.context,
    );
    call.attempts.set(event.attempt, { span });
    injectTraceContext(span, event.traceContext);
  };

  const attemptFinished = (event: AttemptFinishedEvent) => {
    const attempt = calls.get(event.callId)?.attempts.get(event.attempt);
    if (!attempt) return;
    if (event.outcome === 'success') {
      calls.get(event.callId)?.attempts.delete(event.attempt);
      attempt.span.end(at(event.time));
      return;
    }
    failStatus(attempt.span, event.classification);
    attempt.endTime = event.time;
  };

  const classificationAttributes = (
    c: Classification,
    decision: string,
    delayMs: number,
    giveUpReason: string | undefined,
  ): Attributes => {
    const attributes: Attributes = {
      [ATTR_ERROR_CLASS]: errorAttributes(c)[ATTR_ERROR_CLASS],
      [ATTR_ERROR_TYPE]: errorTypeValue(c.type),
      [ATTR_MCP_RESILIENCE_DECISION]: (DECISION_VALUES as readonly string[]).includes(decision)
        ? decision
        : OTHER_VALUE,
      [ATTR_MCP_RESILIENCE_DELAY_MS]: delayMs,
      [ATTR_MCP_RESILIENCE_EXECUTION]: String(c.execution),
      [ATTR_MCP_RESILIENCE_CLASSIFICATION_SOURCE]: String(c.source),
      [ATTR_MCP_RESILIENCE_HEALTH_NEUTRAL]: c.healthNeutral === true,
    };
    if (giveUpReason !== undefined) attributes[ATTR_MCP_RESILIENCE_GIVE_UP_REASON] = giveUpReason;
    if (typeof c.retryAfterMs === 'number') attributes[ATTR_MCP_RESILIENCE_RETRY_AFTER_MS] = c.retryAfterMs;
    const text = message(c);
    if (text !== undefined) attributes[ATTR_MCP_RESILIENCE_ERROR_MESSAGE] = text;
    return attributes;
  };

  const failureClassified = (event: FailureClassifiedEvent) => {
    const call = calls.get(event.callId);
    if (!call) return;
    const attempt = call.attempts.get(event.attempt);
    call.attempts.delete(event.attempt);
    const giveUpReason = event.detail?.kind === 'give_up' ? event.detail.reason : undefined;
    const attributes = classificationAttributes(
      event.classification,
      event.decision,
      event.delayMs,
      giveUpReason,
    );
    if (!attempt) {
      call.span.addEvent(EVENT_MCP_RESILIENCE_CLASSIFICATION, attributes, at(event.time));
      return;
    }
    try {
      attempt.span.addEvent(EVENT_MCP_RESILIENCE_CLASSIFICATION, attributes, at(event.time));
    } finally {
      attempt.span.end(at(attempt.endTime ?? event.time));
    }
  };

  /** A wait at the gate: an event on the call span, at the wait's start, saying how long and how it ended. */
  const breakerWaitFinished = (event: BreakerWaitFinishedEvent) => {
    const call = calls.get(event.callId);
    if (!call) return;
    call.gated = true;
    const durationMs = Math.max(0, event.durationMs);
    call.span.addEvent(
      EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT,
      {
        [ATTR_OUTCOME]: (WAIT_OUTCOME_VALUES as readonly string[]).includes(event.outcome)
          ? event.outcome
          : OTHER_VALUE,
        [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_MS]: durationMs,
      },
      at(event.time - durationMs),
    );
  };

  const callFinished = (event: CallFinishedEvent) => {
    const call = calls.get(event.callId);
    if (!call) return;
    calls.delete(event.callId);
    try {
      endAttempts(call, event.time);
      const { span } = call;
      span.setAttributes({
        [ATTR_MCP_RESILIENCE_OUTCOME]: event.outcome,
        [ATTR_MCP_RESILIENCE_ATTEMPTS]: event.attempts,
        [ATTR_MCP_RESILIENCE_WASTED_RETRIES]: event.wastedRetries,
        [ATTR_MCP_RESILIENCE_WASTED_TIME_MS]: event.wastedTimeMs,
      });
      if (call.gated || (event.breakerWaitMs ?? 0) > 0) {
        span.setAttribute(ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_MS, Math.max(0, event.breakerWaitMs ?? 0));
      }
      if (event.outcome !== 'success') {
        const c = event.classification;
        // A call rejected before any attempt (open breaker, a full wait queue, Retry-After past the deadline)
        // has no attempt span to carry its classification: the call span carries it.
        if (c && call.attemptsMade === 0) {
          const shed = event.reason === 'shed';
          const decision = c.type === 'circuit_open' && !shed ? 'circuit_open' : 'give_up';
          span.addEvent(
            EVENT_MCP_RESILIENCE_CLASSIFICATION,
            classificationAttributes(c, decision, 0, shed ? 'shed' : undefined),
            at(event.time),
          );
        }
        failStatus(span, c);
      }
    } finally {
      call.span.end(at(event.time));
    }
  };

  const breakerTransition = (t: Tracer, event: BreakerTransitionEvent) => {
    const attributes: Attributes = {
      ...breakerMetricAttributes(event.endpoint, event.attributes),
      [ATTR_MCP_RESILIENCE_ENDPOINT]: event.endpoint,
      [ATTR_FROM_STATE]: stateValue(event.from),
      [ATTR_TO_STATE]: stateValue(event.to),
      [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_REASON]: String(event.reason),
    };
    const call = event.callId === undefined ? undefined : calls.get(event.callId);
    if (call) {
      call.span.addEvent(EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION, attributes, at(event.time));
      return;
    }
    // Outside any open call (timer-driven open → half_open): a short root span of its own, so it is exported.
    // Root: a breaker timer runs in the async context of the call that opened the breaker, long finished.
    const span = t.startSpan(SPAN_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION, {
      kind: SpanKind.INTERNAL,
      startTime: at(event.time),
      attributes,
      root: true,
    });
    span.addEvent(EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION, attributes, at(event.time));
    span.end(at(event.time));
  };

  return {
    get openCalls() {
      return calls.size;
    },
    record(event) {
      switch (event.type) {
        case 'attempt_finished':
          return attemptFinished(event);
        case 'failure_classified':
          return failureClassified(event);
        case 'call_finished':
          return callFinished(event);
        case 'breaker_wait_finished':
          return breakerWaitFinished(event);
        case 'call_started':
        case 'attempt_started':
        case 'breaker_transition': {
          const t = getTracer();
          if (!t) return;
          if (event.type === 'call_started') return callStarted(t, event);
          if (event.type === 'attempt_started') return attemptStarted(t, event);
          return breakerTransition(t, event);
        }
        default:
          return;
      }
    },
  };
}

/**
 * Event times (epoch milliseconds, or virtual ones) as `HrTime`: the SDK reads a small number as relative to
 * `performance.now()`, which would mix up the two kinds of time.
 */
function at(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}
