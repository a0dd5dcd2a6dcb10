import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AttemptContext } from '../call/CallOptions.js';
import { createResilience } from '../createResilience.js';
import type { ResilienceOptions } from '../options.js';
import { createFakeClock, type FakeClock } from '../testing/createFakeClock.js';
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
  ATTR_MCP_RESILIENCE_DECISION,
  ATTR_MCP_RESILIENCE_DELAY_MS,
  ATTR_MCP_RESILIENCE_ERROR_CLASS,
  ATTR_MCP_RESILIENCE_ERROR_MESSAGE,
  ATTR_MCP_RESILIENCE_ERROR_TYPE,
  ATTR_MCP_RESILIENCE_EXECUTION,
  ATTR_MCP_RESILIENCE_GIVE_UP_REASON,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_RETRY_AFTER_MS,
  ATTR_MCP_RESILIENCE_SERVER,
  EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION,
  EVENT_MCP_RESILIENCE_CLASSIFICATION,
  METRIC_MCP_CLIENT_OPERATION_DURATION,
  METRIC_MCP_RESILIENCE_CALL_DURATION,
  METRIC_MCP_RESILIENCE_CALLS,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS,
  METRIC_MCP_RESILIENCE_ERRORS,
  METRIC_MCP_RESILIENCE_RETRIES,
  METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME,
  SPAN_MCP_RESILIENCE_CALL,
  SPAN_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION,
} from './semconv.js';
import {
  createOtelHarness,
  installStackContextManager,
  type OtelHarness,
  pointWith,
  spyDiag,
} from './test-support/otelHarness.js';

const START = 1_000_000;
const TOOL = {
  [ATTR_MCP_RESILIENCE_SERVER]: 'weather',
  [ATTR_MCP_METHOD_NAME]: 'tools/call',
  [ATTR_GEN_AI_TOOL_NAME]: 'get_forecast',
};
const CALL = { endpoint: 'weather', operation: 'tools/call', attributes: TOOL };
const ATTEMPT_SPAN = 'tools/call get_forecast';

const httpError = (status: number, message = `HTTP ${status}`, headers?: Record<string, string>) =>
  Object.assign(new Error(message), { status, ...(headers ? { headers } : {}) });
const reset = () =>
  new TypeError('fetch failed', {
    cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
  });

/** A function that fails with the given errors in turn (each attempt taking `ms` of fake time), then returns 'ok'. */
function script(clock: FakeClock, ms: number, ...failures: unknown[]) {
  const seen: AttemptContext[] = [];
  const fn = async (attempt: AttemptContext) => {
    seen.push(attempt);
    await clock.sleep(ms);
    const failure = failures[seen.length - 1];
    if (failure !== undefined) throw failure;
    return 'ok';
  };
  return Object.assign(fn, { seen });
}

/** Runs the call to completion on the fake clock (timers fire in order) and returns its value or error. */
async function settle<T>(clock: FakeClock, promise: Promise<T>): Promise<T | Error> {
  const result = promise.then(
    (v) => v,
    (e: Error) => e,
  );
  let done = false;
  void result.then(() => {
    done = true;
  });
  for (let i = 0; i < 2_000 && !done; i++) await clock.advance(10);
  return result;
}

const ms = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6;
const duration = (s: ReadableSpan | undefined) => (s ? ms(s.endTime) - ms(s.startTime) : Number.NaN);

describe('createOtelRecorder through createResilience', () => {
  let clock: FakeClock;
  let otel: OtelHarness;
  let restoreContext: () => void;
  const create = (options: ResilienceOptions = {}) =>
    createResilience({
      clock,
      jitter: 'none',
      breakerJitter: 0,
      recorder: createOtelRecorder({
        tracerProvider: otel.tracerProvider,
        meterProvider: otel.meterProvider,
      }),
      ...options,
    });

  beforeEach(() => {
    clock = createFakeClock(START);
    otel = createOtelHarness();
    restoreContext = installStackContextManager();
  });
  afterEach(async () => {
    restoreContext();
    await otel.shutdown();
  });

  it('success on the first attempt: a call span, one attempt span, a traceparent, one successful call', async () => {
    const r = create();
    const fn = script(clock, 120);
    const parent = otel.tracerProvider.getTracer('agent').startSpan('agent step');
    const promise = context.with(trace.setSpan(ROOT_CONTEXT, parent), () => r.execute(fn, CALL));
    expect(await settle(clock, promise)).toBe('ok');
    parent.end();

    const [callSpan] = otel.spansNamed(SPAN_MCP_RESILIENCE_CALL);
    const [attemptSpan] = otel.spansNamed(ATTEMPT_SPAN);
    expect(otel.spans().map((s) => s.name)).toEqual([ATTEMPT_SPAN, SPAN_MCP_RESILIENCE_CALL, 'agent step']);
    expect(callSpan?.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(attemptSpan?.parentSpanContext?.spanId).toBe(callSpan?.spanContext().spanId);
    expect(attemptSpan?.kind).toBe(SpanKind.CLIENT);
    expect(attemptSpan?.attributes[ATTR_MCP_RESILIENCE_ATTEMPT]).toBe(1);
    expect(duration(attemptSpan)).toBeCloseTo(120, 3);
    const { traceId, spanId } = attemptSpan!.spanContext();
    expect(fn.seen[0]?.traceContext).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
    expect(traceId).toBe(parent.spanContext().traceId);

    expect(await otel.points(METRIC_MCP_RESILIENCE_CALLS)).toEqual([
      { attributes: { ...TOOL, [ATTR_MCP_RESILIENCE_OUTCOME]: 'success' }, value: 1 },
    ]);
    expect(await otel.points(METRIC_MCP_RESILIENCE_RETRIES)).toEqual([]);
    const [callDuration] = await otel.points(METRIC_MCP_RESILIENCE_CALL_DURATION);
    expect((callDuration?.value as Histogram | undefined)?.sum).toBeCloseTo(0.12, 10);
    const [operation] = await otel.points(METRIC_MCP_CLIENT_OPERATION_DURATION);
    expect(operation?.attributes).toEqual({
      [ATTR_MCP_METHOD_NAME]: 'tools/call',
      [ATTR_GEN_AI_TOOL_NAME]: 'get_forecast',
    });
  });

  it('a retry that succeeds: the failed attempt carries the classification, the retry counts as successful', async () => {
    const r = create({ backoffBaseMs: 200 });
    const fn = script(clock, 50, reset());
    expect(await settle(clock, r.execute(fn, CALL))).toBe('ok');

    const attempts = otel.spansNamed(ATTEMPT_SPAN);
    expect(attempts.map((s) => s.attributes[ATTR_MCP_RESILIENCE_ATTEMPT])).toEqual([1, 2]);
    const [first, second] = attempts;
    expect(first?.status.code).toBe(SpanStatusCode.ERROR);
    expect(first?.attributes[ATTR_ERROR_TYPE]).toBe('network');
    expect(first?.events.map((e) => e.name)).toEqual([EVENT_MCP_RESILIENCE_CLASSIFICATION]);
    expect(first?.events[0]?.attributes).toMatchObject({
      [ATTR_MCP_RESILIENCE_ERROR_CLASS]: 'retryable',
      [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'network',
      [ATTR_MCP_RESILIENCE_DECISION]: 'retry',
      [ATTR_MCP_RESILIENCE_DELAY_MS]: 200,
      [ATTR_MCP_RESILIENCE_EXECUTION]: 'unknown',
    });
    expect(second?.status.code).toBe(SpanStatusCode.UNSET);
    expect(fn.seen[1]?.traceContext.traceparent).toContain(second!.spanContext().spanId);
    const [callSpan] = otel.spansNamed(SPAN_MCP_RESILIENCE_CALL);
    expect(callSpan?.status.code).toBe(SpanStatusCode.UNSET);
    expect(callSpan?.attributes[ATTR_MCP_RESILIENCE_ATTEMPTS]).toBe(2);
    expect(duration(callSpan)).toBeCloseTo(300, 3); // 50 + 200 wait + 50

    expect(await otel.points(METRIC_MCP_RESILIENCE_RETRIES)).toEqual([
      {
        attributes: {
          ...TOOL,
          [ATTR_MCP_RESILIENCE_OUTCOME]: 'success',
          [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'network',
        },
        value: 1,
      },
    ]);
    expect(await otel.points(METRIC_MCP_RESILIENCE_ERRORS)).toEqual([
      {
        attributes: {
          ...TOOL,
          [ATTR_MCP_RESILIENCE_ERROR_CLASS]: 'retryable',
          [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'network',
        },
        value: 1,
      },
    ]);
    expect(await otel.points(METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME)).toEqual([
      { attributes: TOOL, value: 0 },
    ]);
  });

  it('a non-retryable failure: one attempt, no retry, the call fails at once with its class', async () => {
    const r = create();
    const fn = script(
      clock,
      30,
      httpError(400, 'Bad Request: city is required; Authorization: Bearer abc123'),
    );
    const error = await settle(clock, r.execute(fn, CALL));
    expect(error).toBeInstanceOf(Error);
    expect(fn.seen).toHaveLength(1);

    const [attemptSpan] = otel.spansNamed(ATTEMPT_SPAN);
    expect(attemptSpan?.events[0]?.attributes).toMatchObject({
      [ATTR_MCP_RESILIENCE_ERROR_CLASS]: 'non_retryable',
      [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'invalid_request',
      [ATTR_MCP_RESILIENCE_DECISION]: 'give_up',
      [ATTR_MCP_RESILIENCE_GIVE_UP_REASON]: 'non_retryable',
    });
    const message = String(attemptSpan?.events[0]?.attributes?.[ATTR_MCP_RESILIENCE_ERROR_MESSAGE]);
    expect(message).toContain('city is required');
    expect(message).not.toContain('abc123');
    const [callSpan] = otel.spansNamed(SPAN_MCP_RESILIENCE_CALL);
    expect(callSpan?.status.code).toBe(SpanStatusCode.ERROR);
    expect(callSpan?.attributes).toMatchObject({
      [ATTR_MCP_RESILIENCE_OUTCOME]: 'failure',
      [ATTR_MCP_RESILIENCE_ERROR_CLASS]: 'non_retryable',
      [ATTR_ERROR_TYPE]: 'invalid_request',
      [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'invalid_request',
    });

    expect(await otel.points(METRIC_MCP_RESILIENCE_CALLS)).toEqual([
      {
        attributes: {
          ...TOOL,
          [ATTR_MCP_RESILIENCE_OUTCOME]: 'failure',
          [ATTR_MCP_RESILIENCE_ERROR_CLASS]: 'non_retryable',
          [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'invalid_request',
        },
        value: 1,
      },
    ]);
    expect(await otel.points(METRIC_MCP_RESILIENCE_RETRIES)).toEqual([]);
    // MTTF for non-retryable errors: the call duration histogram with outcome=failure, error.class=non_retryable.
    const [mttf] = await otel.points(METRIC_MCP_RESILIENCE_CALL_DURATION);
    expect(mttf?.attributes).toEqual({
      ...TOOL,
      [ATTR_MCP_RESILIENCE_OUTCOME]: 'failure',
      [ATTR_MCP_RESILIENCE_ERROR_CLASS]: 'non_retryable',
    });
    expect(mttf?.value).toMatchObject({ count: 1 });
    expect((mttf?.value as Histogram | undefined)?.sum).toBeCloseTo(0.03, 10);
  });

  it('a rate limit honoured: the wait decision carries the Retry-After delay', async () => {
    const r = create();
    const fn = script(clock, 10, httpError(429, 'Too Many Requests', { 'retry-after': '2' }));
    expect(await settle(clock, r.execute(fn, CALL))).toBe('ok');

    const [first] = otel.spansNamed(ATTEMPT_SPAN);
    const attributes = first?.events[0]?.attributes ?? {};
    expect(attributes).toMatchObject({
      [ATTR_MCP_RESILIENCE_ERROR_CLASS]: 'conditional',
      [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'rate_limited',
      [ATTR_MCP_RESILIENCE_DECISION]: 'wait',
      [ATTR_MCP_RESILIENCE_RETRY_AFTER_MS]: 2_000,
    });
    expect(attributes[ATTR_MCP_RESILIENCE_DELAY_MS]).toBeGreaterThanOrEqual(2_000);
    expect(await otel.points(METRIC_MCP_RESILIENCE_RETRIES)).toEqual([
      {
        attributes: {
          ...TOOL,
          [ATTR_MCP_RESILIENCE_OUTCOME]: 'success',
          [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'rate_limited',
        },
        value: 1,
      },
    ]);
  });

  it('a budget refusal: the decision is budget_exhausted and no retry is counted', async () => {
    const r = create({ budgetRatio: 0, budgetMinRetriesPerSecond: 0 });
    const fn = script(clock, 10, httpError(503));
    const error = await settle(clock, r.execute(fn, CALL));
    expect(error).toBeInstanceOf(Error);
    expect(fn.seen).toHaveLength(1);

    const [first] = otel.spansNamed(ATTEMPT_SPAN);
    expect(first?.events[0]?.attributes).toMatchObject({
      [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'unavailable',
      [ATTR_MCP_RESILIENCE_DECISION]: 'budget_exhausted',
    });
    expect(await otel.points(METRIC_MCP_RESILIENCE_RETRIES)).toEqual([]);
    expect(await otel.points(METRIC_MCP_RESILIENCE_CALLS)).toEqual([
      {
        attributes: {
          ...TOOL,
          [ATTR_MCP_RESILIENCE_OUTCOME]: 'failure',
          [ATTR_MCP_RESILIENCE_ERROR_CLASS]: 'retryable',
          [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'unavailable',
        },
        value: 1,
      },
    ]);
  });

  it('a fail-fast breaker that opens, rejects, half-opens on its timer and closes', async () => {
    const r = create({
      maxAttempts: 1,
      breakerConsecutiveFailures: 2,
      breakerBreakMs: 10_000,
      breakerWait: false,
    });
    const state = async () =>
      (await otel.points(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE))
        .filter((p) => p.value === 1)
        .map((p) => [
          p.attributes[ATTR_MCP_RESILIENCE_SERVER],
          p.attributes[ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE],
        ]);

    expect(await settle(clock, r.execute(script(clock, 10, httpError(503)), CALL))).toBeInstanceOf(Error);
    expect(await state()).toEqual([['weather', 'closed']]);
    expect(await settle(clock, r.execute(script(clock, 10, httpError(503)), CALL))).toBeInstanceOf(Error);
    expect(await state()).toEqual([['weather', 'open']]);

    // Rejected without an attempt.
    const rejectedFn = script(clock, 10);
    expect(await settle(clock, r.execute(rejectedFn, CALL))).toBeInstanceOf(Error);
    expect(rejectedFn.seen).toHaveLength(0);

    // The break elapses: the breaker's own timer half-opens it, outside any call.
    await clock.advance(10_000);
    expect(await state()).toEqual([['weather', 'half_open']]);

    // A probe succeeds: closed.
    expect(await settle(clock, r.execute(script(clock, 10), CALL))).toBe('ok');
    expect(await state()).toEqual([['weather', 'closed']]);

    const calls = otel.spansNamed(SPAN_MCP_RESILIENCE_CALL);
    expect(calls.map((s) => s.attributes[ATTR_MCP_RESILIENCE_OUTCOME])).toEqual([
      'failure',
      'failure',
      'rejected',
      'success',
    ]);
    const transitionsOn = (s: ReadableSpan | undefined) =>
      (s?.events ?? [])
        .filter((e) => e.name === EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION)
        .map((e) => [
          e.attributes?.[ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE],
          e.attributes?.[ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE],
          e.attributes?.[ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_REASON],
        ]);
    expect(transitionsOn(calls[1])).toEqual([['closed', 'open', 'consecutive_failures']]);
    expect(transitionsOn(calls[3])).toEqual([['half_open', 'closed', 'probe_succeeded']]);
    const standalone = otel.spansNamed(SPAN_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION);
    expect(standalone).toHaveLength(1);
    expect(standalone[0]?.parentSpanContext).toBeUndefined();
    expect(transitionsOn(standalone[0])).toEqual([['open', 'half_open', 'break_elapsed']]);
    expect(calls[2]?.events[0]?.attributes).toMatchObject({
      [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'circuit_open',
      [ATTR_MCP_RESILIENCE_DECISION]: 'circuit_open',
    });

    const transitions = await otel.points(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS);
    const t = (from: string, to: string) =>
      pointWith(transitions, {
        [ATTR_MCP_RESILIENCE_SERVER]: 'weather',
        [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE]: from,
        [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE]: to,
      })?.value;
    expect([t('closed', 'open'), t('open', 'half_open'), t('half_open', 'closed')]).toEqual([1, 1, 1]);
    expect(transitions).toHaveLength(3);

    const outcomes = await otel.points(METRIC_MCP_RESILIENCE_CALLS);
    expect(
      pointWith(outcomes, {
        ...TOOL,
        [ATTR_MCP_RESILIENCE_OUTCOME]: 'rejected',
        [ATTR_MCP_RESILIENCE_ERROR_CLASS]: 'conditional',
        [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'circuit_open',
      })?.value,
    ).toBe(1);
    expect(pointWith(outcomes, { ...TOOL, [ATTR_MCP_RESILIENCE_OUTCOME]: 'success' })?.value).toBe(1);
  });

  describe('telemetry failures leave the call unchanged', () => {
    const run = async (recorderOptions: Parameters<typeof createOtelRecorder>[0]) => {
      const r = createResilience({ clock, jitter: 'none', recorder: createOtelRecorder(recorderOptions) });
      const ok = await settle(clock, r.execute(script(clock, 5, reset()), CALL));
      const failed = await settle(clock, r.execute(script(clock, 5, httpError(400), httpError(400)), CALL));
      return { ok, failed };
    };

    it.each([
      [
        'a throwing tracer provider',
        () => ({
          tracerProvider: {
            getTracer: () => {
              throw new Error('boom');
            },
          } as TracerProvider,
        }),
      ],
      [
        'a throwing tracer',
        () => ({
          tracerProvider: {
            getTracer: () => ({
              startSpan: () => {
                throw new Error('boom');
              },
              startActiveSpan: () => {
                throw new Error('boom');
              },
            }),
          } as TracerProvider,
        }),
      ],
      [
        'a throwing meter provider',
        () => ({
          meterProvider: {
            getMeter: () => {
              throw new Error('boom');
            },
          },
        }),
      ],
      [
        'a throwing span processor',
        () => {
          const processor: SpanProcessor = {
            onStart: () => {},
            onEnd: () => {
              throw new Error('boom');
            },
            forceFlush: async () => {},
            shutdown: async () => {},
          };
          return { tracerProvider: createOtelHarnessWith(processor) };
        },
      ],
    ])('%s: same results, one diag warning', async (_name, options) => {
      const diagSpy = spyDiag();
      try {
        const { ok, failed } = await run(options());
        expect(ok).toBe('ok');
        expect(failed).toBeInstanceOf(Error);
        expect((failed as Error).message).toMatch(/non_retryable invalid_request after 1 attempt/);
        expect(diagSpy.logger.warn).toHaveBeenCalledTimes(1);
      } finally {
        diagSpy.restore();
      }
    });

    it('a throwing exporter: same results, the recorder itself reports nothing', async () => {
      const diagSpy = spyDiag();
      const exporter: SpanExporter = {
        export: () => {
          throw new Error('collector exploded');
        },
        shutdown: async () => {},
      };
      const broken = createOtelHarness({ spanExporter: exporter });
      try {
        const { ok, failed } = await run({
          tracerProvider: broken.tracerProvider,
          meterProvider: broken.meterProvider,
        });
        expect(ok).toBe('ok');
        expect(failed).toBeInstanceOf(Error);
        expect(diagSpy.logger.warn).not.toHaveBeenCalled();
        expect(await broken.points(METRIC_MCP_RESILIENCE_CALLS)).toHaveLength(2);
      } finally {
        diagSpy.restore();
        await broken.shutdown();
      }
    });
  });
});

/** A tracer provider whose only span processor is `processor`. */
function createOtelHarnessWith(processor: SpanProcessor): TracerProvider {
  return new BasicTracerProvider({ spanProcessors: [processor] });
}
