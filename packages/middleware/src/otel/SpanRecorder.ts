import { context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { Classification } from '../classify/Classification.js';
import { attemptAnnotations } from '../record/attemptAnnotations.js';
import type { Recorder } from '../record/Recorder.js';
import type {
  AttemptFinishedEvent,
  AttemptStartedEvent,
  BreakerWaitFinishedEvent,
  CallFinishedEvent,
  CallStartedEvent,
  FailureClassifiedEvent,
  ResilienceEvent,
} from '../record/ResilienceEvent.js';
import { agentLoopSpanEvent } from './agentLoopSpanEvent.js';
import {
  attemptSemconvAttributes,
  attemptSpanName,
  callSpanAttributes,
  errorAttributes,
  errorTypeValue,
  semconvErrorType,
} from './attributes.js';
import { breakerTransitionSpan } from './breakerTransitionSpan.js';
import { type CallSpan, CallSpans, endAttempts } from './CallSpans.js';
import { classificationAttributes, failureMessage } from './classificationAttributes.js';
import { injectTraceContext } from './injectTraceContext.js';
import type { ResolvedOtelRecorderOptions } from './OtelRecorderOptions.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_MCP_RESILIENCE_ATTEMPT,
  ATTR_MCP_RESILIENCE_ATTEMPTS,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_MS,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_WASTED_RETRIES,
  ATTR_MCP_RESILIENCE_WASTED_TIME_MS,
  EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT,
  EVENT_MCP_RESILIENCE_CLASSIFICATION,
  INSTRUMENTATION_SCOPE_NAME,
  OTHER_VALUE,
  SPAN_MCP_RESILIENCE_CALL,
  WAIT_OUTCOME_VALUES,
} from './semconv.js';
import { shadowSpanEvent } from './shadowSpanEvent.js';
import { toHrTime as at } from './toHrTime.js';

/** Turns resilience events into the call span, its attempt spans and their events (design §4). */
export class SpanRecorder implements Recorder {
  private readonly calls: CallSpans;
  private tracer: Tracer | undefined;
  private broken = false;

  constructor(
    private readonly options: ResolvedOtelRecorderOptions,
    onCapReached: () => void,
  ) {
    this.calls = new CallSpans(options.maxOpenCalls, onCapReached);
  }

  get openCalls(): number {
    return this.calls.size;
  }

  record(event: ResilienceEvent) {
    switch (event.type) {
      case 'call_started':
        return this.withTracer((t) => this.callStarted(t, event));
      case 'attempt_started':
        return this.withTracer((t) => this.attemptStarted(t, event));
      case 'breaker_transition':
        return this.withTracer((t) => breakerTransitionSpan(t, this.calls.get(event.callId), event));
      case 'attempt_finished':
        return this.attemptFinished(event);
      case 'failure_classified':
        return this.failureClassified(event);
      case 'call_finished':
        return this.callFinished(event);
      case 'shadow_classified':
        return shadowSpanEvent(this.calls.get(event.callId), event);
      case 'breaker_wait_finished':
        return this.breakerWaitFinished(event);
      case 'model_retry_avoided':
      case 'fallback':
        return agentLoopSpanEvent(event, at);
      default:
        return;
    }
  }

  private withTracer(use: (tracer: Tracer) => void): void {
    if (!this.tracer && !this.broken) {
      const provider = this.options.tracerProvider ?? trace.getTracerProvider();
      try {
        this.tracer = provider.getTracer(INSTRUMENTATION_SCOPE_NAME);
      } catch (error) {
        this.broken = true; // a provider that throws here would throw on every event: stop asking
        throw error;
      }
    }
    if (this.tracer) use(this.tracer);
  }

  /** The classifier's class and type, and the span's error status (its description: the redacted message). */
  private failStatus(span: Span, c: Classification | undefined): void {
    span.setAttributes(errorAttributes(c));
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: failureMessage(this.options, c) ?? errorTypeValue(c?.type),
    });
  }

  private callStarted(t: Tracer, event: CallStartedEvent): void {
    if (this.calls.has(event.callId)) return;
    this.calls.makeRoom(event.time);
    // `record` runs synchronously inside `execute`: the active context is the caller's.
    const parent = context.active();
    const attributes = callSpanAttributes(event);
    const span = t.startSpan(
      SPAN_MCP_RESILIENCE_CALL,
      { kind: SpanKind.INTERNAL, startTime: at(event.time), attributes },
      parent,
    );
    this.calls.add(event.callId, {
      span,
      context: trace.setSpan(parent, span),
      attributes,
      attempts: new Map(),
      attemptsMade: 0,
      gated: false,
    });
  }

  private attemptStarted(t: Tracer, event: AttemptStartedEvent): void {
    const call = this.calls.get(event.callId);
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
    call.attempts.set(event.attempt, { span, carrier: event.traceContext });
    injectTraceContext(span, event.traceContext);
  }

  private attemptFinished(event: AttemptFinishedEvent): void {
    const call = this.calls.get(event.callId);
    const attempt = call?.attempts.get(event.attempt);
    if (!call || !attempt) return;
    const annotated = attemptSemconvAttributes(attemptAnnotations(attempt.carrier));
    if (event.outcome === 'success') {
      call.attempts.delete(event.attempt);
      attempt.span.setAttributes(annotated);
      attempt.span.end(at(event.time));
      return;
    }
    this.failStatus(attempt.span, event.classification);
    // `error.type` in its OTel meaning (the JSON-RPC code, `tool_error`); the classifier's stays in ours.
    const errorType = semconvErrorType(annotated, event.classification);
    call.lastFailure = { type: errorTypeValue(event.classification?.type), errorType };
    attempt.span.setAttributes({ ...annotated, [ATTR_ERROR_TYPE]: errorType });
    attempt.endTime = event.time;
  }

  private failureClassified(event: FailureClassifiedEvent): void {
    const call = this.calls.get(event.callId);
    if (!call) return;
    const attempt = call.attempts.get(event.attempt);
    call.attempts.delete(event.attempt);
    const attributes = classificationAttributes(this.options, event.classification, {
      decision: event.decision,
      delayMs: event.delayMs,
      ...(event.detail?.kind === 'give_up' ? { giveUpReason: event.detail.reason } : {}),
    });
    const span = attempt?.span ?? call.span;
    try {
      span.addEvent(EVENT_MCP_RESILIENCE_CLASSIFICATION, attributes, at(event.time));
    } finally {
      attempt?.span.end(at(attempt.endTime ?? event.time));
    }
  }

  /** A wait at the gate: an event on the call span, at the wait's start, saying how long and how it ended. */
  private breakerWaitFinished(event: BreakerWaitFinishedEvent): void {
    const call = this.calls.get(event.callId);
    if (!call) return;
    call.gated = true;
    const durationMs = Math.max(0, event.durationMs);
    const outcome = (WAIT_OUTCOME_VALUES as readonly string[]).includes(event.outcome)
      ? event.outcome
      : OTHER_VALUE;
    call.span.addEvent(
      EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT,
      { [ATTR_MCP_RESILIENCE_OUTCOME]: outcome, [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_MS]: durationMs },
      at(event.time - durationMs),
    );
  }

  private callFinished(event: CallFinishedEvent): void {
    const call = this.calls.take(event.callId);
    if (!call) return;
    try {
      endAttempts(call, event.time);
      call.span.setAttributes({
        [ATTR_MCP_RESILIENCE_OUTCOME]: event.outcome,
        [ATTR_MCP_RESILIENCE_ATTEMPTS]: event.attempts,
        [ATTR_MCP_RESILIENCE_WASTED_RETRIES]: event.wastedRetries,
        [ATTR_MCP_RESILIENCE_WASTED_TIME_MS]: event.wastedTimeMs,
      });
      if (call.gated || (event.breakerWaitMs ?? 0) > 0) {
        call.span.setAttribute(
          ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_MS,
          Math.max(0, event.breakerWaitMs ?? 0),
        );
      }
      if (event.outcome !== 'success') this.callFailed(call, event);
    } finally {
      call.span.end(at(event.time));
    }
  }

  private callFailed(call: CallSpan, event: CallFinishedEvent): void {
    const c = event.classification;
    // A call rejected before any attempt (open breaker, a full wait queue, Retry-After past the deadline)
    // has no attempt span to carry its classification: the call span carries it.
    if (c && call.attemptsMade === 0) {
      const shed = event.reason === 'shed';
      const decision = c.type === 'circuit_open' && !shed ? 'circuit_open' : 'give_up';
      const attributes = classificationAttributes(this.options, c, {
        decision,
        delayMs: 0,
        ...(shed ? { giveUpReason: 'shed' } : {}),
      });
      call.span.addEvent(EVENT_MCP_RESILIENCE_CLASSIFICATION, attributes, at(event.time));
    }
    this.failStatus(call.span, c);
    // `error.type` (OTel meaning): the last attempt's when the call ended with its failure, else the classifier's.
    const type = errorTypeValue(c?.type);
    const last = call.lastFailure;
    call.span.setAttribute(ATTR_ERROR_TYPE, last?.type === type ? last.errorType : type);
  }
}
