import type { Histogram } from '@opentelemetry/sdk-metrics';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createResilience } from '../createResilience.js';
import type { ResilienceError } from '../errors/ResilienceError.js';
import { createFakeClock, type FakeClock } from '../testing/createFakeClock.js';
import { createOtelRecorder } from './createOtelRecorder.js';
import {
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_MS,
  ATTR_MCP_RESILIENCE_GIVE_UP_REASON,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_SERVER,
  ATTR_MCP_RESILIENCE_VARIANT,
  EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT,
  EVENT_MCP_RESILIENCE_CLASSIFICATION,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_SHED,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_DURATION,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING,
  SPAN_MCP_RESILIENCE_CALL,
} from './semconv.js';
import { createOtelHarness, type OtelHarness, pointWith } from './test-support/otelHarness.js';

const START = 1_000_000;
const SERVER = { [ATTR_MCP_RESILIENCE_SERVER]: 'weather' };
const CALL = { endpoint: 'weather', operation: 'tools/call', endpointAttributes: SERVER, timeoutMs: 30_000 };
const unavailable = () => Object.assign(new Error('Service Unavailable'), { status: 503 });
const ms = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6;

describe('createOtelRecorder: the breaker gate', () => {
  let clock: FakeClock;
  let otel: OtelHarness;

  beforeEach(() => {
    clock = createFakeClock(START);
    otel = createOtelHarness();
  });
  afterEach(() => otel.shutdown());

  const create = () =>
    createResilience({
      clock,
      jitter: 'none',
      breakerJitter: 0,
      breakerBreakMs: 1_000,
      breakerMaxWaiting: 2,
      recorder: createOtelRecorder({
        tracerProvider: otel.tracerProvider,
        meterProvider: otel.meterProvider,
      }),
    });
  const open = async (r: ReturnType<typeof create>) => {
    for (let i = 0; i < 5; i++) {
      await r
        .execute(
          async () => {
            throw unavailable();
          },
          { ...CALL, maxAttempts: 1 },
        )
        .catch(() => {});
    }
    otel.spanExporter.reset();
  };

  it('records the waits, the calls waiting now, the shed calls, and the wait on the call span', async () => {
    const r = create();
    await open(r);
    let up = false;
    const fn = async () => {
      if (!up) throw unavailable();
      return 'ok';
    };
    const waiting = [r.execute(fn, CALL), r.execute(fn, CALL)];
    const shed = await r.execute(fn, CALL).catch((e: ResilienceError) => e);
    expect(shed).toMatchObject({ reason: 'shed' });
    await clock.advance(400);

    expect(await otel.points(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING)).toEqual([
      { attributes: SERVER, value: 2 },
    ]);
    expect(await otel.points(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_SHED)).toEqual([
      { attributes: SERVER, value: 1 },
    ]);

    up = true;
    await clock.advance(600);
    await clock.runAll();
    expect(await Promise.all(waiting)).toEqual(['ok', 'ok']);
    expect(await otel.points(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING)).toEqual([
      { attributes: SERVER, value: 0 },
    ]);

    const durations = await otel.points(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_DURATION);
    const released = pointWith(durations, { ...SERVER, [ATTR_MCP_RESILIENCE_OUTCOME]: 'released' })
      ?.value as Histogram;
    expect(released).toMatchObject({ count: 2, sum: 2 });
    const shedPoint = pointWith(durations, { ...SERVER, [ATTR_MCP_RESILIENCE_OUTCOME]: 'shed' })
      ?.value as Histogram;
    expect(shedPoint).toMatchObject({ count: 1, sum: 0 });

    const calls = otel.spansNamed(SPAN_MCP_RESILIENCE_CALL);
    const shedSpan = calls.find((s) => s.attributes[ATTR_MCP_RESILIENCE_OUTCOME] === 'rejected');
    expect(shedSpan?.attributes[ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_MS]).toBe(0);
    expect(
      shedSpan?.events.find((e) => e.name === EVENT_MCP_RESILIENCE_CLASSIFICATION)?.attributes?.[
        ATTR_MCP_RESILIENCE_GIVE_UP_REASON
      ],
    ).toBe('shed');
    const succeeded = calls.filter((s) => s.attributes[ATTR_MCP_RESILIENCE_OUTCOME] === 'success');
    expect(succeeded).toHaveLength(2);
    for (const span of succeeded) {
      expect(span.attributes[ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_MS]).toBe(1_000);
      const wait = span.events.find((e) => e.name === EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT);
      expect(wait?.attributes).toEqual({
        [ATTR_MCP_RESILIENCE_OUTCOME]: 'released',
        [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_MS]: 1_000,
      });
      expect(ms(wait!.time)).toBe(START + 0); // the event marks the wait's start
    }
  });

  it("puts the call's variant on the wait durations and shed calls; the waiting gauge stays per breaker", async () => {
    const r = createResilience({
      clock,
      jitter: 'none',
      breakerJitter: 0,
      breakerBreakMs: 1_000,
      breakerMaxWaiting: 1,
      recorder: createOtelRecorder({
        tracerProvider: otel.tracerProvider,
        meterProvider: otel.meterProvider,
      }),
      variants: { control: {}, candidate: {} },
      split: { control: 0, candidate: 1 },
    });
    await open(r as ReturnType<typeof create>);
    let up = false;
    const fn = async () => {
      if (!up) throw unavailable();
      return 'ok';
    };
    const waiting = r.execute(fn, CALL);
    expect(await r.execute(fn, CALL).catch((e: ResilienceError) => e.reason)).toBe('shed');
    await clock.advance(400);
    expect(await otel.points(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING)).toEqual([
      { attributes: SERVER, value: 1 },
    ]);
    up = true;
    await clock.advance(600);
    await clock.runAll();
    expect(await waiting).toBe('ok');

    const variant = { [ATTR_MCP_RESILIENCE_VARIANT]: 'candidate' };
    expect(await otel.points(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_SHED)).toEqual([
      { attributes: { ...SERVER, ...variant }, value: 1 },
    ]);
    const durations = await otel.points(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAIT_DURATION);
    expect(
      durations
        .map((p) => p.attributes)
        .sort((a, b) =>
          String(a[ATTR_MCP_RESILIENCE_OUTCOME]).localeCompare(String(b[ATTR_MCP_RESILIENCE_OUTCOME])),
        ),
    ).toEqual([
      { ...SERVER, ...variant, [ATTR_MCP_RESILIENCE_OUTCOME]: 'released' },
      { ...SERVER, ...variant, [ATTR_MCP_RESILIENCE_OUTCOME]: 'shed' },
    ]);
  });

  it('a recorder that throws on the wait events never breaks the waiting call', async () => {
    const r = createResilience({
      clock,
      breakerJitter: 0,
      breakerBreakMs: 1_000,
      recorder: {
        record(event) {
          if (event.type === 'breaker_wait_started' || event.type === 'breaker_wait_finished')
            throw new Error('boom');
        },
      },
    });
    const tool = {
      ...CALL,
      endpoint: 'weather/get_forecast',
      endpointAttributes: { ...SERVER, [ATTR_GEN_AI_TOOL_NAME]: 'get_forecast' },
    };
    for (let i = 0; i < 5; i++)
      await r
        .execute(
          async () => {
            throw unavailable();
          },
          { ...tool, maxAttempts: 1 },
        )
        .catch(() => {});
    const call = r.execute(async () => 'ok', tool);
    await clock.advance(1_000);
    expect(await call).toBe('ok');
  });
});
