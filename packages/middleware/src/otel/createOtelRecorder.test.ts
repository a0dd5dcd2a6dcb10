import {
  context,
  type MeterProvider,
  metrics,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { DataPointType, type Histogram } from '@opentelemetry/sdk-metrics';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Classification } from '../classify/Classification.js';
import type { BreakerSnapshot, BreakerState } from '../decide/BreakerState.js';
import type { Decision } from '../decide/Decision.js';
import type { Recorder } from '../record/Recorder.js';
import type { CallRef, ResilienceEvent } from '../record/ResilienceEvent.js';
import { createOtelRecorder } from './createOtelRecorder.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_RESILIENCE_ATTEMPT,
  ATTR_MCP_RESILIENCE_ATTEMPTS,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_REASON,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE,
  ATTR_MCP_RESILIENCE_CLASSIFICATION_SOURCE,
  ATTR_MCP_RESILIENCE_DECISION,
  ATTR_MCP_RESILIENCE_DELAY_MS,
  ATTR_MCP_RESILIENCE_ENDPOINT,
  ATTR_MCP_RESILIENCE_ERROR_CLASS,
  ATTR_MCP_RESILIENCE_ERROR_MESSAGE,
  ATTR_MCP_RESILIENCE_ERROR_TYPE,
  ATTR_MCP_RESILIENCE_EXECUTION,
  ATTR_MCP_RESILIENCE_GIVE_UP_REASON,
  ATTR_MCP_RESILIENCE_OPERATION,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_SERVER,
  ATTR_MCP_RESILIENCE_WASTED_RETRIES,
  ATTR_MCP_RESILIENCE_WASTED_TIME_MS,
  ATTR_MCP_SESSION_ID,
  ATTR_NETWORK_TRANSPORT,
  EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION,
  EVENT_MCP_RESILIENCE_CLASSIFICATION,
  INSTRUMENTATION_SCOPE_NAME,
  MCP_CLIENT_OPERATION_DURATION_BUCKETS,
  MCP_RESILIENCE_CALL_DURATION_BUCKETS,
  METRIC_MCP_CLIENT_OPERATION_DURATION,
  METRIC_MCP_RESILIENCE_CALL_DURATION,
  METRIC_MCP_RESILIENCE_CALLS,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING,
  METRIC_MCP_RESILIENCE_ERRORS,
  METRIC_MCP_RESILIENCE_RETRIES,
  METRIC_MCP_RESILIENCE_RETRY_WASTED_COST,
  METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME,
  OTHER_VALUE,
  SPAN_MCP_RESILIENCE_CALL,
  SPAN_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION,
  UNIT_CALL,
  UNIT_ERROR,
  UNIT_RETRY,
  UNIT_SECONDS,
  UNIT_STATE,
  UNIT_TRANSITION,
} from './semconv.js';
import {
  createOtelHarness,
  installStackContextManager,
  type OtelHarness,
  pointWith,
  spyDiag,
} from './test-support/otelHarness.js';

const MCP_ATTRIBUTES = {
  [ATTR_MCP_RESILIENCE_SERVER]: 'weather',
  [ATTR_MCP_METHOD_NAME]: 'tools/call',
  [ATTR_GEN_AI_TOOL_NAME]: 'get_forecast',
  [ATTR_MCP_SESSION_ID]: 'session-1',
  [ATTR_NETWORK_TRANSPORT]: 'tcp',
};
/** The attributes of the `weather` endpoint (its breaker), as the MCP edge sets them for per-server breakers. */
const ENDPOINT_ATTRIBUTES = { [ATTR_MCP_RESILIENCE_SERVER]: 'weather' };
/** The metric attribute set of a call to `weather`'s `get_forecast`. */
const BASE = {
  [ATTR_MCP_RESILIENCE_SERVER]: 'weather',
  [ATTR_MCP_METHOD_NAME]: 'tools/call',
  [ATTR_GEN_AI_TOOL_NAME]: 'get_forecast',
};

const TIMEOUT: Classification = {
  class: 'retryable',
  type: 'timeout',
  execution: 'unknown',
  source: 'node.code',
  message: 'request to https://bob:hunter2@api.example.com/v1?token=abc123 timed out',
};
const INVALID: Classification = {
  class: 'non_retryable',
  type: 'invalid_params',
  execution: 'executed',
  source: 'jsonrpc.code',
  message: 'Invalid params: city is required (Authorization: Bearer sk-ant-api03-abcdefghijklmnop)',
};

let nextId = 100;

/** Emits the events of one call, the way the core does. */
function call(recorder: Recorder, attributes: Record<string, string> = MCP_ATTRIBUTES, endpoint = 'weather') {
  const ref: CallRef = { callId: nextId++, endpoint, operation: 'tools/call', attributes };
  const traceContexts: Record<string, string>[] = [];
  const emit = (event: ResilienceEvent) => recorder.record(event);
  let attempt = 0;
  return {
    ref,
    traceContexts,
    start(time = 1_000) {
      emit({ type: 'call_started', ...ref, time });
      return this;
    },
    attempt(time: number, durationMs: number, failure?: Classification) {
      attempt++;
      const traceContext: Record<string, string> = {};
      traceContexts.push(traceContext);
      emit({ type: 'attempt_started', ...ref, time, attempt, traceContext });
      emit({
        type: 'attempt_finished',
        ...ref,
        time: time + durationMs,
        attempt,
        durationMs,
        outcome: failure ? 'failure' : 'success',
        ...(failure ? { classification: failure } : {}),
      });
      return this;
    },
    classified(time: number, classification: Classification, decision: Decision) {
      const delayMs = 'delayMs' in decision ? decision.delayMs : 0;
      emit({
        type: 'failure_classified',
        ...ref,
        time,
        attempt,
        classification,
        decision: decision.kind,
        detail: decision,
        delayMs,
      });
      if (decision.kind === 'retry' || decision.kind === 'wait' || decision.kind === 'reconnect') {
        emit({ type: 'retry_scheduled', ...ref, time, attempt: attempt + 1, delayMs, classification });
      }
      return this;
    },
    finish(
      time: number,
      outcome: 'success' | 'failure' | 'rejected',
      extra: {
        classification?: Classification;
        wastedRetries?: number;
        wastedTimeMs?: number;
        start?: number;
      } = {},
    ) {
      emit({
        type: 'call_finished',
        ...ref,
        time,
        durationMs: time - (extra.start ?? 1_000),
        outcome,
        attempts: attempt,
        ...(extra.classification ? { classification: extra.classification } : {}),
        wastedRetries: extra.wastedRetries ?? 0,
        wastedTimeMs: extra.wastedTimeMs ?? 0,
      });
      return this;
    },
  };
}

const snapshot = (
  endpoint: string,
  state: BreakerState,
  attributes: Record<string, string>,
): BreakerSnapshot => ({
  endpoint,
  state,
  since: 0,
  consecutiveFailures: 0,
  windowCalls: 0,
  windowFailures: 0,
  reopenCount: 0,
  attributes,
});

describe('createOtelRecorder', () => {
  let otel: OtelHarness;
  let recorder: Recorder;
  let restoreContext: () => void;

  beforeEach(() => {
    otel = createOtelHarness();
    recorder = createOtelRecorder({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider });
    restoreContext = installStackContextManager();
  });
  afterEach(async () => {
    restoreContext();
    propagation.disable();
    await otel.shutdown();
  });

  describe('spans', () => {
    it('makes one INTERNAL call span with one CLIENT attempt span named per the MCP conventions', () => {
      call(recorder).start(1_000).attempt(1_000, 120).finish(1_120, 'success');

      const [callSpan] = otel.spansNamed(SPAN_MCP_RESILIENCE_CALL);
      const [attemptSpan] = otel.spansNamed('tools/call get_forecast');
      expect(otel.spans()).toHaveLength(2);
      expect(callSpan?.kind).toBe(SpanKind.INTERNAL);
      expect(attemptSpan?.kind).toBe(SpanKind.CLIENT);
      expect(attemptSpan?.parentSpanContext?.spanId).toBe(callSpan?.spanContext().spanId);
      expect(attemptSpan?.spanContext().traceId).toBe(callSpan?.spanContext().traceId);
      expect(callSpan?.parentSpanContext).toBeUndefined();
      expect(callSpan?.instrumentationScope.name).toBe(INSTRUMENTATION_SCOPE_NAME);
      expect(callSpan?.attributes).toEqual({
        ...MCP_ATTRIBUTES,
        [ATTR_MCP_RESILIENCE_ENDPOINT]: 'weather',
        [ATTR_MCP_RESILIENCE_OPERATION]: 'tools/call',
        [ATTR_MCP_RESILIENCE_OUTCOME]: 'success',
        [ATTR_MCP_RESILIENCE_ATTEMPTS]: 1,
        [ATTR_MCP_RESILIENCE_WASTED_RETRIES]: 0,
        [ATTR_MCP_RESILIENCE_WASTED_TIME_MS]: 0,
      });
      expect(attemptSpan?.attributes).toMatchObject({ ...MCP_ATTRIBUTES, [ATTR_MCP_RESILIENCE_ATTEMPT]: 1 });
      expect(callSpan?.status.code).toBe(SpanStatusCode.UNSET);
      expect(attemptSpan?.status.code).toBe(SpanStatusCode.UNSET);
      expect(attemptSpan?.attributes[ATTR_ERROR_TYPE]).toBeUndefined();
    });

    it('times spans with the events’ clock', () => {
      call(recorder).start(5_000).attempt(5_010, 250).finish(5_300, 'success', { start: 5_000 });
      const [attemptSpan] = otel.spansNamed('tools/call get_forecast');
      const [callSpan] = otel.spansNamed(SPAN_MCP_RESILIENCE_CALL);
      const ms = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6;
      expect(ms(attemptSpan!.endTime) - ms(attemptSpan!.startTime)).toBeCloseTo(250, 3);
      expect(ms(callSpan!.endTime) - ms(callSpan!.startTime)).toBeCloseTo(300, 3);
    });

    it('parents the call span to the context active when the call starts', () => {
      const parent = otel.tracerProvider.getTracer('agent').startSpan('agent step');
      const c = call(recorder);
      context.with(trace.setSpan(ROOT_CONTEXT, parent), () => c.start(1_000));
      c.attempt(1_000, 5).finish(1_005, 'success');
      parent.end();
      const [callSpan] = otel.spansNamed(SPAN_MCP_RESILIENCE_CALL);
      expect(callSpan?.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
      expect(callSpan?.spanContext().traceId).toBe(parent.spanContext().traceId);
    });

    it('injects the attempt span’s W3C traceparent into the event’s carrier (no propagator registered)', () => {
      const c = call(recorder).start().attempt(1_000, 5).finish(1_005, 'success');
      const [attemptSpan] = otel.spansNamed('tools/call get_forecast');
      const { traceId, spanId } = attemptSpan!.spanContext();
      expect(c.traceContexts[0]).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
    });

    it('injects through the global propagator when one is registered', () => {
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
      const c = call(recorder).start().attempt(1_000, 5).finish(1_005, 'success');
      const [attemptSpan] = otel.spansNamed('tools/call get_forecast');
      const { traceId, spanId } = attemptSpan!.spanContext();
      expect(c.traceContexts[0]?.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    });

    it('marks a failed attempt ERROR and puts the classification event on it, message redacted', () => {
      call(recorder)
        .start(1_000)
        .attempt(1_000, 30_000, TIMEOUT)
        .classified(31_000, TIMEOUT, { kind: 'retry', delayMs: 400 })
        .attempt(31_400, 100)
        .finish(31_500, 'success', { start: 1_000 });

      const attempts = otel.spansNamed('tools/call get_forecast');
      expect(attempts.map((s) => s.attributes[ATTR_MCP_RESILIENCE_ATTEMPT])).toEqual([1, 2]);
      const [first, second] = attempts;
      expect(first?.status).toEqual({
        code: SpanStatusCode.ERROR,
        message: 'request to https://bob:***@api.example.com/v1?token=*** timed out',
      });
      expect(first?.attributes[ATTR_ERROR_TYPE]).toBe('timeout');
      expect(first?.attributes[ATTR_MCP_RESILIENCE_ERROR_CLASS]).toBe('retryable');
      expect(first?.events).toHaveLength(1);
      expect(first?.events[0]?.name).toBe(EVENT_MCP_RESILIENCE_CLASSIFICATION);
      expect(first?.events[0]?.attributes).toEqual({
        [ATTR_MCP_RESILIENCE_ERROR_CLASS]: 'retryable',
        [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'timeout',
        [ATTR_MCP_RESILIENCE_DECISION]: 'retry',
        [ATTR_MCP_RESILIENCE_DELAY_MS]: 400,
        [ATTR_MCP_RESILIENCE_EXECUTION]: 'unknown',
        [ATTR_MCP_RESILIENCE_CLASSIFICATION_SOURCE]: 'node.code',
        'mcp.resilience.health_neutral': false,
        [ATTR_MCP_RESILIENCE_ERROR_MESSAGE]:
          'request to https://bob:***@api.example.com/v1?token=*** timed out',
      });
      expect(second?.status.code).toBe(SpanStatusCode.UNSET);
      for (const s of attempts)
        expect(s.parentSpanContext?.spanId).toBe(
          otel.spansNamed(SPAN_MCP_RESILIENCE_CALL)[0]?.spanContext().spanId,
        );
      // The failed attempt ends when it finished, not when it was classified.
      const ms = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6;
      expect(ms(first!.endTime) - ms(first!.startTime)).toBeCloseTo(30_000, 3);
    });

    it('marks a failed call ERROR with error.type and error.class, and records the give-up reason', () => {
      call(recorder)
        .start()
        .attempt(1_000, 40, INVALID)
        .classified(1_040, INVALID, { kind: 'give_up', reason: 'non_retryable' })
        .finish(1_040, 'failure', { classification: INVALID });

      const [callSpan] = otel.spansNamed(SPAN_MCP_RESILIENCE_CALL);
      expect(callSpan?.status.code).toBe(SpanStatusCode.ERROR);
      expect(callSpan?.status.message).toBe('Invalid params: city is required (Authorization: ***)');
      expect(callSpan?.attributes).toMatchObject({
        [ATTR_ERROR_TYPE]: 'invalid_params',
        [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'invalid_params',
        [ATTR_MCP_RESILIENCE_ERROR_CLASS]: 'non_retryable',
        [ATTR_MCP_RESILIENCE_OUTCOME]: 'failure',
      });
      const [attemptSpan] = otel.spansNamed('tools/call get_forecast');
      expect(attemptSpan?.events[0]?.attributes).toMatchObject({
        [ATTR_MCP_RESILIENCE_DECISION]: 'give_up',
        [ATTR_MCP_RESILIENCE_GIVE_UP_REASON]: 'non_retryable',
        [ATTR_MCP_RESILIENCE_DELAY_MS]: 0,
      });
    });

    it('omits messages when captureMessages is false', () => {
      recorder = createOtelRecorder({ tracerProvider: otel.tracerProvider, captureMessages: false });
      call(recorder)
        .start()
        .attempt(1_000, 40, INVALID)
        .classified(1_040, INVALID, { kind: 'give_up', reason: 'non_retryable' })
        .finish(1_040, 'failure', { classification: INVALID });
      const [attemptSpan] = otel.spansNamed('tools/call get_forecast');
      expect(attemptSpan?.events[0]?.attributes?.[ATTR_MCP_RESILIENCE_ERROR_MESSAGE]).toBeUndefined();
      expect(attemptSpan?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'invalid_params' });
    });

    it('caps messages at messageMaxLength and applies extra redaction patterns', () => {
      recorder = createOtelRecorder({
        tracerProvider: otel.tracerProvider,
        messageMaxLength: 20,
        redact: [/customer-\d+/],
      });
      const c: Classification = { ...INVALID, message: 'customer-4242 is not allowed to use this tool' };
      call(recorder)
        .start()
        .attempt(1_000, 40, c)
        .classified(1_040, c, { kind: 'give_up', reason: 'non_retryable' })
        .finish(1_040, 'failure', { classification: c });
      const [attemptSpan] = otel.spansNamed('tools/call get_forecast');
      expect(attemptSpan?.events[0]?.attributes?.[ATTR_MCP_RESILIENCE_ERROR_MESSAGE]).toBe(
        '*** is not allowed …',
      );
    });

    it('names the spans of a plain function after its operation and endpoint', () => {
      const ref: CallRef = { callId: nextId++, endpoint: 'billing-api', operation: 'charge', attributes: {} };
      recorder.record({ type: 'call_started', ...ref, time: 0 });
      recorder.record({ type: 'attempt_started', ...ref, time: 0, attempt: 1, traceContext: {} });
      recorder.record({
        type: 'attempt_finished',
        ...ref,
        time: 3,
        attempt: 1,
        durationMs: 3,
        outcome: 'success',
      });
      recorder.record({
        type: 'call_finished',
        ...ref,
        time: 3,
        durationMs: 3,
        outcome: 'success',
        attempts: 1,
        wastedRetries: 0,
        wastedTimeMs: 0,
      });
      const [attemptSpan] = otel.spansNamed('charge');
      expect(attemptSpan?.attributes).toMatchObject({
        [ATTR_MCP_RESILIENCE_SERVER]: 'billing-api',
        [ATTR_MCP_METHOD_NAME]: 'charge',
      });
      expect(otel.spansNamed(SPAN_MCP_RESILIENCE_CALL)[0]?.attributes[ATTR_MCP_RESILIENCE_SERVER]).toBe(
        'billing-api',
      );
    });

    it('puts a call-caused breaker transition on the call span, a timer-driven one on a standalone span', () => {
      const c = call(recorder).start();
      const transition = (from: BreakerState, to: BreakerState, reason: string, callId?: number) =>
        recorder.record({
          type: 'breaker_transition',
          time: 2_000,
          endpoint: 'weather',
          attributes: ENDPOINT_ATTRIBUTES,
          from,
          to,
          reason,
          ...(callId === undefined ? {} : { callId }),
        });
      c.attempt(1_000, 10, TIMEOUT);
      transition('closed', 'open', 'consecutive_failures', c.ref.callId);
      c.classified(1_010, TIMEOUT, { kind: 'circuit_open', retryAfterMs: 10_000 }).finish(1_010, 'failure', {
        classification: TIMEOUT,
      });
      transition('open', 'half_open', 'break_elapsed');

      const [callSpan] = otel.spansNamed(SPAN_MCP_RESILIENCE_CALL);
      const event = callSpan?.events.find((e) => e.name === EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION);
      expect(event?.attributes).toEqual({
        [ATTR_MCP_RESILIENCE_SERVER]: 'weather',
        [ATTR_MCP_RESILIENCE_ENDPOINT]: 'weather',
        [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE]: 'closed',
        [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE]: 'open',
        [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_REASON]: 'consecutive_failures',
      });
      const [standalone] = otel.spansNamed(SPAN_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION);
      expect(standalone?.kind).toBe(SpanKind.INTERNAL);
      expect(standalone?.parentSpanContext).toBeUndefined();
      expect(standalone?.events.map((e) => e.name)).toEqual([
        EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION,
      ]);
      expect(standalone?.events[0]?.attributes).toMatchObject({
        [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE]: 'open',
        [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE]: 'half_open',
      });
    });

    it('puts the classification of a call rejected before any attempt on the call span', () => {
      const open: Classification = {
        class: 'conditional',
        type: 'circuit_open',
        execution: 'not_sent',
        retryAfterMs: 8_000,
        source: 'circuit_breaker',
        message: "circuit breaker for 'weather' is open",
        healthNeutral: true,
      };
      call(recorder).start().finish(1_000, 'rejected', { classification: open });
      expect(otel.spans()).toHaveLength(1);
      const [callSpan] = otel.spansNamed(SPAN_MCP_RESILIENCE_CALL);
      expect(callSpan?.status.code).toBe(SpanStatusCode.ERROR);
      expect(callSpan?.attributes).toMatchObject({
        [ATTR_MCP_RESILIENCE_OUTCOME]: 'rejected',
        [ATTR_ERROR_TYPE]: 'circuit_open',
        [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'circuit_open',
      });
      expect(callSpan?.events[0]?.name).toBe(EVENT_MCP_RESILIENCE_CLASSIFICATION);
      expect(callSpan?.events[0]?.attributes).toMatchObject({
        [ATTR_MCP_RESILIENCE_DECISION]: 'circuit_open',
        'mcp.resilience.retry_after_ms': 8_000,
        'mcp.resilience.health_neutral': true,
      });
    });

    it('ends the oldest open call when more than maxOpenCalls are open, and warns once', () => {
      const diagSpy = spyDiag();
      try {
        recorder = createOtelRecorder({
          tracerProvider: otel.tracerProvider,
          meterProvider: otel.meterProvider,
          maxOpenCalls: 2,
        });
        const calls = [
          call(recorder).start(),
          call(recorder).start(),
          call(recorder).start(),
          call(recorder).start(),
        ];
        expect(otel.spansNamed(SPAN_MCP_RESILIENCE_CALL)).toHaveLength(2);
        for (const c of calls) c.finish(1_001, 'success');
        expect(otel.spansNamed(SPAN_MCP_RESILIENCE_CALL)).toHaveLength(4);
        expect(diagSpy.logger.warn).toHaveBeenCalledTimes(1);
        expect(String(diagSpy.logger.warn.mock.calls[0]?.[0])).toMatch(/maxOpenCalls \(2\)/);
      } finally {
        diagSpy.restore();
      }
    });
  });

  describe('metrics', () => {
    it('declares every instrument with its contract name, unit, type and buckets', async () => {
      recorder = createOtelRecorder({
        tracerProvider: otel.tracerProvider,
        meterProvider: otel.meterProvider,
        costPerAttempt: 2.5,
      });
      recorder.record({
        type: 'recorder_attached',
        breakers: () => [snapshot('weather', 'closed', ENDPOINT_ATTRIBUTES)],
      });
      call(recorder)
        .start(0)
        .attempt(0, 100, TIMEOUT)
        .classified(100, TIMEOUT, { kind: 'retry', delayMs: 100 })
        .attempt(200, 100, TIMEOUT)
        .classified(300, TIMEOUT, { kind: 'give_up', reason: 'max_attempts' })
        .finish(300, 'failure', { classification: TIMEOUT, wastedRetries: 1, wastedTimeMs: 200, start: 0 });
      recorder.record({
        type: 'breaker_transition',
        time: 300,
        endpoint: 'weather',
        attributes: ENDPOINT_ATTRIBUTES,
        from: 'closed',
        to: 'open',
        reason: 'consecutive_failures',
      });

      const byName = new Map((await otel.collect()).map((m) => [m.descriptor.name, m]));
      const expectations: Array<[string, string, DataPointType, 'INT' | 'DOUBLE']> = [
        [METRIC_MCP_RESILIENCE_CALLS, UNIT_CALL, DataPointType.SUM, 'INT'],
        [METRIC_MCP_RESILIENCE_RETRIES, UNIT_RETRY, DataPointType.SUM, 'INT'],
        [METRIC_MCP_RESILIENCE_ERRORS, UNIT_ERROR, DataPointType.SUM, 'INT'],
        [METRIC_MCP_RESILIENCE_CALL_DURATION, UNIT_SECONDS, DataPointType.HISTOGRAM, 'DOUBLE'],
        [METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME, UNIT_SECONDS, DataPointType.SUM, 'DOUBLE'],
        [METRIC_MCP_RESILIENCE_RETRY_WASTED_COST, '{cost}', DataPointType.SUM, 'DOUBLE'],
        [METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE, UNIT_STATE, DataPointType.GAUGE, 'INT'],
        [METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS, UNIT_TRANSITION, DataPointType.SUM, 'INT'],
        [METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING, UNIT_CALL, DataPointType.GAUGE, 'INT'],
        [METRIC_MCP_CLIENT_OPERATION_DURATION, UNIT_SECONDS, DataPointType.HISTOGRAM, 'DOUBLE'],
      ];
      for (const [name, unit, type, valueType] of expectations) {
        const m = byName.get(name);
        expect(m, name).toBeDefined();
        expect(m?.descriptor.unit, name).toBe(unit);
        expect(m?.dataPointType, name).toBe(type);
        expect(m?.descriptor.valueType, name).toBe(valueType === 'INT' ? 0 : 1);
        if (m?.dataPointType === DataPointType.SUM) expect(m.isMonotonic, name).toBe(true);
      }
      expect(byName.size).toBe(expectations.length);
      const boundaries = (name: string) => {
        const m = byName.get(name);
        return m?.dataPointType === DataPointType.HISTOGRAM
          ? m.dataPoints[0]?.value.buckets.boundaries
          : undefined;
      };
      expect(boundaries(METRIC_MCP_RESILIENCE_CALL_DURATION)).toEqual(MCP_RESILIENCE_CALL_DURATION_BUCKETS);
      expect(boundaries(METRIC_MCP_CLIENT_OPERATION_DURATION)).toEqual(MCP_CLIENT_OPERATION_DURATION_BUCKETS);
      expect(MCP_RESILIENCE_CALL_DURATION_BUCKETS[0]).toBe(0.005);
      expect(MCP_RESILIENCE_CALL_DURATION_BUCKETS.at(-1)).toBe(60);
    });

    it('counts a successful first attempt: one successful call, no retries, no errors', async () => {
      call(recorder).start(1_000).attempt(1_000, 250).finish(1_250, 'success');

      expect(await otel.points(METRIC_MCP_RESILIENCE_CALLS)).toEqual([
        { attributes: { ...BASE, [ATTR_MCP_RESILIENCE_OUTCOME]: 'success' }, value: 1 },
      ]);
      expect(await otel.points(METRIC_MCP_RESILIENCE_RETRIES)).toEqual([]);
      expect(await otel.points(METRIC_MCP_RESILIENCE_ERRORS)).toEqual([]);
      const [duration] = await otel.points(METRIC_MCP_RESILIENCE_CALL_DURATION);
      expect(duration?.attributes).toEqual({ ...BASE, [ATTR_MCP_RESILIENCE_OUTCOME]: 'success' });
      expect(duration?.value).toMatchObject({ count: 1, sum: 0.25 });
      const [operation] = await otel.points(METRIC_MCP_CLIENT_OPERATION_DURATION);
      expect(operation?.attributes).toEqual({
        [ATTR_MCP_METHOD_NAME]: 'tools/call',
        [ATTR_GEN_AI_TOOL_NAME]: 'get_forecast',
        [ATTR_NETWORK_TRANSPORT]: 'tcp',
      });
      expect(operation?.value).toMatchObject({ count: 1, sum: 0.25 });
      expect(await otel.points(METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME)).toEqual([
        { attributes: BASE, value: 0 },
      ]);
    });

    it('counts a retry by its own outcome, with the error.type of the failure that triggered it', async () => {
      call(recorder)
        .start(0)
        .attempt(0, 100, TIMEOUT)
        .classified(100, TIMEOUT, { kind: 'retry', delayMs: 200 })
        .attempt(300, 100, { ...TIMEOUT, type: 'unavailable' })
        .classified(400, { ...TIMEOUT, type: 'unavailable' }, { kind: 'retry', delayMs: 400 })
        .attempt(800, 50)
        .finish(850, 'success', { wastedRetries: 1, wastedTimeMs: 300, start: 0 });

      const retries = await otel.points(METRIC_MCP_RESILIENCE_RETRIES);
      expect(retries).toHaveLength(2);
      expect(
        pointWith(retries, {
          ...BASE,
          [ATTR_MCP_RESILIENCE_OUTCOME]: 'failure',
          [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'timeout',
        })?.value,
      ).toBe(1);
      expect(
        pointWith(retries, {
          ...BASE,
          [ATTR_MCP_RESILIENCE_OUTCOME]: 'success',
          [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'unavailable',
        })?.value,
      ).toBe(1);
      const errors = await otel.points(METRIC_MCP_RESILIENCE_ERRORS);
      expect(errors).toHaveLength(2);
      expect(
        pointWith(errors, {
          ...BASE,
          [ATTR_MCP_RESILIENCE_ERROR_CLASS]: 'retryable',
          [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'timeout',
        })?.value,
      ).toBe(1);
      expect(
        pointWith(errors, {
          ...BASE,
          [ATTR_MCP_RESILIENCE_ERROR_CLASS]: 'retryable',
          [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'unavailable',
        })?.value,
      ).toBe(1);
      expect(await otel.points(METRIC_MCP_RESILIENCE_CALLS)).toEqual([
        { attributes: { ...BASE, [ATTR_MCP_RESILIENCE_OUTCOME]: 'success' }, value: 1 },
      ]);
      expect(await otel.points(METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME)).toEqual([
        { attributes: BASE, value: 0.3 },
      ]);
      const operations = await otel.points(METRIC_MCP_CLIENT_OPERATION_DURATION);
      const op = {
        [ATTR_MCP_METHOD_NAME]: 'tools/call',
        [ATTR_GEN_AI_TOOL_NAME]: 'get_forecast',
        [ATTR_NETWORK_TRANSPORT]: 'tcp',
      };
      expect(pointWith(operations, { ...op, [ATTR_ERROR_TYPE]: 'timeout' })?.value).toMatchObject({
        count: 1,
      });
      expect(pointWith(operations, { ...op, [ATTR_ERROR_TYPE]: 'unavailable' })?.value).toMatchObject({
        count: 1,
      });
      expect(pointWith(operations, op)?.value).toMatchObject({ count: 1, sum: 0.05 });
    });

    it('records a failed call with error.class and error.type, and its duration with error.class', async () => {
      call(recorder)
        .start(0)
        .attempt(0, 40, INVALID)
        .classified(40, INVALID, { kind: 'give_up', reason: 'non_retryable' })
        .finish(40, 'failure', { classification: INVALID, start: 0 });
      expect(await otel.points(METRIC_MCP_RESILIENCE_CALLS)).toEqual([
        {
          attributes: {
            ...BASE,
            [ATTR_MCP_RESILIENCE_OUTCOME]: 'failure',
            [ATTR_MCP_RESILIENCE_ERROR_CLASS]: 'non_retryable',
            [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'invalid_params',
          },
          value: 1,
        },
      ]);
      const [duration] = await otel.points(METRIC_MCP_RESILIENCE_CALL_DURATION);
      expect(duration?.attributes).toEqual({
        ...BASE,
        [ATTR_MCP_RESILIENCE_OUTCOME]: 'failure',
        [ATTR_MCP_RESILIENCE_ERROR_CLASS]: 'non_retryable',
      });
      expect((duration?.value as Histogram | undefined)?.sum).toBeCloseTo(0.04, 10);
    });

    it('maps values outside the fixed lists to _OTHER', async () => {
      const odd = { ...TIMEOUT, class: 'maybe', type: 'weird_thing' } as unknown as Classification;
      call(recorder)
        .start(0)
        .attempt(0, 1, odd)
        .classified(1, odd, { kind: 'give_up', reason: 'non_retryable' })
        .finish(1, 'failure', { classification: odd, start: 0 });
      expect(await otel.points(METRIC_MCP_RESILIENCE_ERRORS)).toEqual([
        {
          attributes: {
            ...BASE,
            [ATTR_MCP_RESILIENCE_ERROR_CLASS]: OTHER_VALUE,
            [ATTR_MCP_RESILIENCE_ERROR_TYPE]: OTHER_VALUE,
          },
          value: 1,
        },
      ]);
      expect(otel.spansNamed('tools/call get_forecast')[0]?.attributes[ATTR_ERROR_TYPE]).toBe(OTHER_VALUE);
    });

    it('never puts ids, messages or arguments on metrics', async () => {
      call(recorder)
        .start(0)
        .attempt(0, 1, TIMEOUT)
        .classified(1, TIMEOUT, { kind: 'retry', delayMs: 1 })
        .attempt(2, 1)
        .finish(3, 'success', { start: 0 });
      recorder.record({
        type: 'breaker_transition',
        time: 3,
        endpoint: 'weather',
        attributes: ENDPOINT_ATTRIBUTES,
        from: 'closed',
        to: 'open',
        reason: 'failure_rate',
      });
      const allowed = new Set([
        ATTR_MCP_RESILIENCE_SERVER,
        ATTR_MCP_METHOD_NAME,
        ATTR_GEN_AI_TOOL_NAME,
        ATTR_MCP_RESILIENCE_ERROR_TYPE,
        ATTR_MCP_RESILIENCE_ERROR_CLASS,
        ATTR_MCP_RESILIENCE_OUTCOME,
        ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
        ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE,
        ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE,
      ]);
      for (const m of await otel.collect()) {
        for (const p of m.dataPoints) {
          for (const key of Object.keys(p.attributes)) {
            const ok =
              allowed.has(key as never) ||
              // `error.type` (OTel meaning) only on the MCP conventions' metric; ours carry our own type.
              ((key === ATTR_NETWORK_TRANSPORT || key === ATTR_ERROR_TYPE) &&
                m.descriptor.name === METRIC_MCP_CLIENT_OPERATION_DURATION);
            expect(ok, `${m.descriptor.name} has attribute ${key}`).toBe(true);
          }
        }
      }
    });

    it('counts rejected calls as outcome=rejected', async () => {
      const open: Classification = {
        class: 'conditional',
        type: 'circuit_open',
        execution: 'not_sent',
        source: 'circuit_breaker',
      };
      call(recorder).start(0).finish(0, 'rejected', { classification: open, start: 0 });
      expect(await otel.points(METRIC_MCP_RESILIENCE_CALLS)).toEqual([
        {
          attributes: {
            ...BASE,
            [ATTR_MCP_RESILIENCE_OUTCOME]: 'rejected',
            [ATTR_MCP_RESILIENCE_ERROR_CLASS]: 'conditional',
            [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'circuit_open',
          },
          value: 1,
        },
      ]);
    });

    it('counts transitions and reports breaker state one-hot from every attached instance', async () => {
      let weather: BreakerState = 'closed';
      recorder.record({
        type: 'recorder_attached',
        breakers: () => [snapshot('weather', weather, ENDPOINT_ATTRIBUTES)],
      });
      recorder.record({
        type: 'recorder_attached',
        breakers: () => [
          snapshot('search/web_search', 'half_open', {
            [ATTR_MCP_RESILIENCE_SERVER]: 'search',
            [ATTR_GEN_AI_TOOL_NAME]: 'web_search',
          }),
          snapshot('plain-endpoint', 'closed', {}),
        ],
      });
      const state = async () =>
        (await otel.points(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE)).map((p) => [
          p.attributes[ATTR_MCP_RESILIENCE_SERVER],
          p.attributes[ATTR_GEN_AI_TOOL_NAME],
          p.attributes[ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE],
          p.value,
        ]);
      expect(await state()).toEqual([
        ['weather', undefined, 'closed', 1],
        ['weather', undefined, 'open', 0],
        ['weather', undefined, 'half_open', 0],
        ['search', 'web_search', 'closed', 0],
        ['search', 'web_search', 'open', 0],
        ['search', 'web_search', 'half_open', 1],
        ['plain-endpoint', undefined, 'closed', 1],
        ['plain-endpoint', undefined, 'open', 0],
        ['plain-endpoint', undefined, 'half_open', 0],
      ]);
      weather = 'open';
      recorder.record({
        type: 'breaker_transition',
        time: 0,
        endpoint: 'weather',
        attributes: ENDPOINT_ATTRIBUTES,
        from: 'closed',
        to: 'open',
        reason: 'consecutive_failures',
      });
      expect((await state()).slice(0, 3)).toEqual([
        ['weather', undefined, 'closed', 0],
        ['weather', undefined, 'open', 1],
        ['weather', undefined, 'half_open', 0],
      ]);
      expect(await otel.points(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS)).toEqual([
        {
          attributes: {
            [ATTR_MCP_RESILIENCE_SERVER]: 'weather',
            [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE]: 'closed',
            [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE]: 'open',
          },
          value: 1,
        },
      ]);
    });

    it('keeps the worst state when two instances report the same breaker attributes', async () => {
      recorder.record({
        type: 'recorder_attached',
        breakers: () => [snapshot('weather', 'closed', ENDPOINT_ATTRIBUTES)],
      });
      recorder.record({
        type: 'recorder_attached',
        breakers: () => [snapshot('weather', 'open', ENDPOINT_ATTRIBUTES)],
      });
      const points = await otel.points(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE);
      expect(
        points
          .filter((p) => p.value === 1)
          .map((p) => p.attributes[ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE]),
      ).toEqual(['open']);
    });

    it('counts wasted cost when costPerAttempt is set', async () => {
      recorder = createOtelRecorder({
        meterProvider: otel.meterProvider,
        tracerProvider: otel.tracerProvider,
        costPerAttempt: 0.5,
      });
      call(recorder)
        .start(0)
        .attempt(0, 1)
        .finish(1, 'failure', { classification: TIMEOUT, wastedRetries: 3, wastedTimeMs: 10, start: 0 });
      expect(await otel.points(METRIC_MCP_RESILIENCE_RETRY_WASTED_COST)).toEqual([
        { attributes: BASE, value: 1.5 },
      ]);
    });

    it('follows a global meter provider registered after the recorder was created', async () => {
      const late = createOtelRecorder({ tracerProvider: otel.tracerProvider });
      call(late).start(0).attempt(0, 1).finish(1, 'success', { start: 0 }); // no-op global meter: dropped
      metrics.setGlobalMeterProvider(otel.meterProvider);
      try {
        call(late).start(0).attempt(0, 1).finish(1, 'success', { start: 0 });
        expect(await otel.points(METRIC_MCP_RESILIENCE_CALLS)).toEqual([
          { attributes: { ...BASE, [ATTR_MCP_RESILIENCE_OUTCOME]: 'success' }, value: 1 },
        ]);
      } finally {
        metrics.disable();
      }
    });
  });

  describe('never breaks a call', () => {
    const throwing = <T extends object>(what: string): T =>
      new Proxy({} as T, {
        get() {
          throw new Error(`${what} exploded`);
        },
      });

    const script = (r: Recorder) =>
      call(r)
        .start(0)
        .attempt(0, 5, TIMEOUT)
        .classified(5, TIMEOUT, { kind: 'retry', delayMs: 5 })
        .attempt(10, 5)
        .finish(15, 'success', { start: 0 });

    it('contains a throwing tracer provider, reports once through diag.warn, and still records metrics', async () => {
      const diagSpy = spyDiag();
      try {
        const tracerProvider: TracerProvider = {
          getTracer: () => {
            throw new Error('no tracer');
          },
        };
        const r = createOtelRecorder({ tracerProvider, meterProvider: otel.meterProvider });
        expect(() => script(r)).not.toThrow();
        expect(() => script(r)).not.toThrow();
        expect(diagSpy.logger.warn).toHaveBeenCalledTimes(1);
        expect(await otel.points(METRIC_MCP_RESILIENCE_CALLS)).toEqual([
          { attributes: { ...BASE, [ATTR_MCP_RESILIENCE_OUTCOME]: 'success' }, value: 2 },
        ]);
      } finally {
        diagSpy.restore();
      }
    });

    it('contains a throwing tracer and a throwing meter provider, reporting once', () => {
      const diagSpy = spyDiag();
      try {
        const tracerProvider: TracerProvider = { getTracer: () => throwing('tracer') };
        const meterProvider: MeterProvider = { getMeter: () => throwing('meter') };
        const r = createOtelRecorder({ tracerProvider, meterProvider });
        for (let i = 0; i < 3; i++) expect(() => script(r)).not.toThrow();
        expect(() =>
          r.record({
            type: 'recorder_attached',
            breakers: () => {
              throw new Error('snapshot failed');
            },
          }),
        ).not.toThrow();
        expect(diagSpy.logger.warn).toHaveBeenCalledTimes(1);
        expect(String(diagSpy.logger.warn.mock.calls[0]?.[0])).toMatch(/call is unaffected/);
      } finally {
        diagSpy.restore();
      }
    });

    it('contains a throwing breaker snapshot getter during collection', async () => {
      const diagSpy = spyDiag();
      try {
        recorder.record({
          type: 'recorder_attached',
          breakers: () => {
            throw new Error('snapshot failed');
          },
        });
        recorder.record({
          type: 'recorder_attached',
          breakers: () => [snapshot('weather', 'open', ENDPOINT_ATTRIBUTES)],
        });
        const points = await otel.points(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE);
        expect(
          points
            .filter((p) => p.value === 1)
            .map((p) => p.attributes[ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE]),
        ).toEqual(['open']);
        expect(diagSpy.logger.warn).toHaveBeenCalledTimes(1);
      } finally {
        diagSpy.restore();
      }
    });

    it('survives events for unknown calls and out-of-order events', () => {
      const ref: CallRef = { callId: 9_999_999, endpoint: 'x', operation: 'y', attributes: {} };
      expect(() => {
        recorder.record({
          type: 'attempt_finished',
          ...ref,
          time: 0,
          attempt: 1,
          durationMs: 1,
          outcome: 'success',
        });
        recorder.record({
          type: 'failure_classified',
          ...ref,
          time: 0,
          attempt: 1,
          classification: TIMEOUT,
          decision: 'retry',
          detail: { kind: 'retry', delayMs: 1 },
          delayMs: 1,
        });
        recorder.record({
          type: 'call_finished',
          ...ref,
          time: 0,
          durationMs: 0,
          outcome: 'success',
          attempts: 1,
          wastedRetries: 0,
          wastedTimeMs: 0,
        });
      }).not.toThrow();
    });
  });

  describe('options', () => {
    it.each([
      [{ messageMaxLength: 0 }, "option 'messageMaxLength' must be an integer >= 1, got 0"],
      [{ captureMessages: 'yes' }, "option 'captureMessages' must be a boolean, got 'yes'"],
      [{ costPerAttempt: -1 }, "option 'costPerAttempt' must be a finite number >= 0, got -1"],
      [{ tracerProvider: {} }, "option 'tracerProvider' must be an object with getTracer(), got {}"],
      [{ meterProvider: 42 }, "option 'meterProvider' must be an object with getMeter(), got 42"],
      [{ redact: ['secret'] }, 'option \'redact\' must be an array of RegExp, got ["secret"]'],
      [{ maxOpenCalls: 1.5 }, "option 'maxOpenCalls' must be an integer >= 1, got 1.5"],
      [{ tracer: {} }, "unknown option 'tracer'"],
    ])('rejects %j', (options, message) => {
      expect(() => createOtelRecorder(options as never)).toThrow(TypeError);
      expect(() => createOtelRecorder(options as never)).toThrow(message);
    });

    it('uses the global providers by default', () => {
      expect(() => createOtelRecorder()).not.toThrow();
      expect(() =>
        call(createOtelRecorder()).start().attempt(1_000, 1).finish(1_001, 'success'),
      ).not.toThrow();
    });
  });
});
