import { createResilience, type Resilience } from '@mcp-resilience/middleware';
import {
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_RESILIENCE_SERVER,
  ATTR_SERVICE_INSTANCE_ID,
  ATTR_SERVICE_NAME,
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
  UNIT_CALL,
  UNIT_ERROR,
  UNIT_RETRY,
  UNIT_SECONDS,
  UNIT_STATE,
  UNIT_TRANSITION,
} from '@mcp-resilience/middleware/semconv';
import { createFakeClock } from '@mcp-resilience/middleware/testing';
import type { DiagLogFunction } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setupTelemetry, type Telemetry } from './setupTelemetry.js';
import { deadPort, type OtlpReceiver, startOtlpReceiver } from './test-support/otlpReceiver.js';

const TOOL = {
  [ATTR_MCP_RESILIENCE_SERVER]: 'weather',
  [ATTR_MCP_METHOD_NAME]: 'tools/call',
  [ATTR_GEN_AI_TOOL_NAME]: 'get_forecast',
};
const httpError = (status: number) => Object.assign(new Error(`HTTP ${status}`), { status });
const reset = () =>
  new TypeError('fetch failed', {
    cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
  });

/** A success, a retry that succeeds, a non-retryable failure, and a breaker that opens, rejects, half-opens, closes. */
async function workload(resilience: Resilience): Promise<unknown[]> {
  const call = { endpoint: 'weather', operation: 'tools/call', attributes: TOOL };
  const results: unknown[] = [];
  // Backoffs and the breaker's break run on the fake clock: advanced until the call settles (no wall-clock race).
  const settle = async (p: Promise<unknown>) => {
    let done = false;
    p.then(
      (v) => results.push(v),
      (e: Error) => results.push(e.message),
    ).finally(() => {
      done = true;
    });
    while (!done) await clock.advance(1);
  };
  await settle(resilience.execute(async () => 'sunny', call));
  let attempts = 0;
  await settle(
    resilience.execute(async () => {
      if (++attempts === 1) throw reset();
      return 'cloudy';
    }, call),
  );
  await settle(
    resilience.execute(async () => {
      throw httpError(400);
    }, call),
  );
  const flaky = {
    endpoint: 'flaky',
    operation: 'tools/call',
    attributes: { ...TOOL, [ATTR_MCP_RESILIENCE_SERVER]: 'flaky' },
  };
  for (let i = 0; i < 2; i++) {
    // Four failed attempts in a row open the breaker: the second call's second attempt.
    await settle(
      resilience.execute(async () => {
        throw httpError(503);
      }, flaky),
    );
  }
  await settle(resilience.execute(async () => 'never runs', flaky)); // rejected: open
  await clock.advance(60); // the break elapses: half-open, timer-driven
  await settle(resilience.execute(async () => 'recovered', flaky)); // the probe closes it
  return results;
}

const EXPECTED_RESULTS = [
  'sunny',
  'cloudy',
  expect.stringMatching(/^non_retryable invalid_request after 1 attempt/),
  expect.stringMatching(/^retryable unavailable after 2 attempts/),
  expect.stringMatching(/^retryable unavailable after \d attempts?/),
  expect.stringMatching(/^conditional circuit_open after 0 attempts/),
  'recovered',
];

/** The workload's time: real time at the start, then only what the tests advance. */
const clock = createFakeClock(Date.now());

const createWorkloadResilience = (telemetry: Telemetry) =>
  createResilience({
    clock,
    recorder: telemetry.recorder,
    jitter: 'none',
    backoffBaseMs: 1,
    adaptiveBackoff: false,
    maxAttempts: 2,
    breakerConsecutiveFailures: 4,
    breakerBreakMs: 40,
    breakerJitter: 0,
    breakerWait: false, // the workload shows a call rejected by an open breaker
  });

const silentLogger = () => ({
  error: vi.fn<DiagLogFunction>(),
  warn: vi.fn<DiagLogFunction>(),
  info: vi.fn<DiagLogFunction>(),
  debug: vi.fn<DiagLogFunction>(),
  verbose: vi.fn<DiagLogFunction>(),
});

describe('setupTelemetry', () => {
  let receiver: OtlpReceiver;
  let telemetry: Telemetry | undefined;

  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(async () => {
    await telemetry?.shutdown();
    telemetry = undefined;
    vi.unstubAllEnvs();
    await receiver.close();
  });

  describe.each(['http/protobuf', 'http/json'] as const)('over OTLP/HTTP (%s)', (protocol) => {
    it('exports the contract’s metrics and spans to the receiver', async () => {
      telemetry = setupTelemetry({
        serviceName: 'weather-agent',
        endpoint: receiver.url,
        protocol,
        diagLogger: silentLogger(),
        resourceAttributes: { 'deployment.environment.name': 'test' },
      });
      const results = await workload(createWorkloadResilience(telemetry));
      expect(results).toEqual(EXPECTED_RESULTS);
      await telemetry.shutdown();

      const contentType = protocol === 'http/json' ? 'application/json' : 'application/x-protobuf';
      expect(new Set(receiver.requests.map((r) => r.path))).toEqual(new Set(['/v1/traces', '/v1/metrics']));
      for (const r of receiver.requests) expect(r.contentType).toContain(contentType);

      const { metrics, spans, resources } = receiver.summary();
      const metric = (name: string) => metrics.find((m) => m.name === name);
      expect(metric(METRIC_MCP_RESILIENCE_CALLS)).toEqual({
        name: METRIC_MCP_RESILIENCE_CALLS,
        unit: UNIT_CALL,
        kind: 'sum',
      });
      expect(metric(METRIC_MCP_RESILIENCE_RETRIES)).toMatchObject({ unit: UNIT_RETRY, kind: 'sum' });
      expect(metric(METRIC_MCP_RESILIENCE_ERRORS)).toMatchObject({ unit: UNIT_ERROR, kind: 'sum' });
      expect(metric(METRIC_MCP_RESILIENCE_CALL_DURATION)).toMatchObject({
        unit: UNIT_SECONDS,
        kind: 'histogram',
      });
      expect(metric(METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME)).toMatchObject({
        unit: UNIT_SECONDS,
        kind: 'sum',
      });
      expect(metric(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE)).toMatchObject({
        unit: UNIT_STATE,
        kind: 'gauge',
      });
      expect(metric(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS)).toMatchObject({
        unit: UNIT_TRANSITION,
        kind: 'sum',
      });
      expect(metric(METRIC_MCP_CLIENT_OPERATION_DURATION)).toMatchObject({
        unit: UNIT_SECONDS,
        kind: 'histogram',
      });

      const named = (name: string) => spans.filter((s) => s.name === name);
      expect(named(SPAN_MCP_RESILIENCE_CALL)).toHaveLength(7);
      expect(named(SPAN_MCP_RESILIENCE_CALL).every((s) => s.kind === 1 && !s.hasParent)).toBe(true); // INTERNAL, root
      const attempts = named('tools/call get_forecast');
      expect(attempts.length).toBeGreaterThanOrEqual(7);
      expect(attempts.every((s) => s.kind === 3 && s.hasParent)).toBe(true); // CLIENT, child of the call span
      // Every failed attempt (all but the 3 successful ones) carries its classification.
      const classified = attempts.filter((s) => s.events.includes(EVENT_MCP_RESILIENCE_CLASSIFICATION));
      expect(classified).toHaveLength(attempts.length - 3);
      const standalone = named(SPAN_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION);
      expect(standalone).toHaveLength(1);
      expect(standalone[0]?.events).toEqual([EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION]);
      const onCalls = named(SPAN_MCP_RESILIENCE_CALL).flatMap((s) => s.events);
      expect(onCalls.filter((e) => e === EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION)).toHaveLength(2);

      for (const resource of resources) {
        expect(resource[ATTR_SERVICE_NAME]).toBe('weather-agent');
        expect(resource[ATTR_SERVICE_INSTANCE_ID]).toMatch(
          /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        );
        expect(resource['deployment.environment.name']).toBe('test');
      }
      expect(new Set(resources.map((r) => r[ATTR_SERVICE_INSTANCE_ID])).size).toBe(1);
    });
  });

  it('honours the OTEL_* environment variables when options are not given', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.url);
    vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/json');
    vi.stubEnv('OTEL_SERVICE_NAME', 'from-env');
    vi.stubEnv('OTEL_RESOURCE_ATTRIBUTES', 'service.instance.id=instance-7,team=agents');
    telemetry = setupTelemetry({ diagLogger: silentLogger() });
    await createWorkloadResilience(telemetry).execute(async () => 1, {
      endpoint: 'weather',
      attributes: TOOL,
    });
    await telemetry.shutdown();

    expect(receiver.requests.length).toBeGreaterThan(0);
    expect(receiver.requests.every((r) => r.contentType.includes('application/json'))).toBe(true);
    for (const resource of receiver.summary().resources) {
      expect(resource).toMatchObject({
        [ATTR_SERVICE_NAME]: 'from-env',
        [ATTR_SERVICE_INSTANCE_ID]: 'instance-7',
        team: 'agents',
      });
    }
  });

  it('lets options win over the environment', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', 'http://127.0.0.1:9');
    vi.stubEnv('OTEL_SERVICE_NAME', 'from-env');
    vi.stubEnv('OTEL_RESOURCE_ATTRIBUTES', 'team=env');
    telemetry = setupTelemetry({
      endpoint: receiver.url,
      serviceName: 'from-options',
      resourceAttributes: { team: 'options' },
      diagLogger: silentLogger(),
    });
    await createWorkloadResilience(telemetry).execute(async () => 1, {
      endpoint: 'weather',
      attributes: TOOL,
    });
    await telemetry.shutdown();
    const { resources } = receiver.summary();
    expect(resources.length).toBeGreaterThan(0);
    for (const resource of resources)
      expect(resource).toMatchObject({ [ATTR_SERVICE_NAME]: 'from-options', team: 'options' });
  });

  it('a dead endpoint: the application is unaffected, shutdown resolves, and the failure is logged once', async () => {
    const logger = silentLogger();
    const endpoint = `http://127.0.0.1:${await deadPort()}`;
    telemetry = setupTelemetry({
      endpoint,
      diagLogger: logger,
      metricExportIntervalMs: 100,
      exportTimeoutMs: 300,
    });
    const resilience = createWorkloadResilience(telemetry);
    expect(await workload(resilience)).toEqual(EXPECTED_RESULTS);
    // several failing metric exports, each one awaited (a sleep gave a slow machine fewer of them)
    for (let i = 0; i < 4; i++) await telemetry.forceFlush();
    await expect(telemetry.shutdown()).resolves.toBeUndefined();

    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(String(logger.warn.mock.calls[0]?.[0])).toMatch(
      new RegExp(`OTLP export to ${endpoint.replace(/[.]/g, '\\.')} is failing \\(.*ECONNREFUSED.*\\)`),
    );
    expect(logger.error).not.toHaveBeenCalled();
  });

  it('a dead endpoint at shutdown, nothing exported before: the final export is dropped at once, not retried for exportTimeoutMs', {
    timeout: 20_000, // the exporters would retry for 120 s, and the batch span processor wait 30 s
  }, async () => {
    const logger = silentLogger();
    const endpoint = `http://127.0.0.1:${await deadPort()}`;
    telemetry = setupTelemetry({ endpoint, diagLogger: logger, exportTimeoutMs: 120_000 });
    expect(await workload(createWorkloadResilience(telemetry))).toEqual(EXPECTED_RESULTS);
    await expect(telemetry.shutdown()).resolves.toBeUndefined();

    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(String(logger.warn.mock.calls[0]?.[0])).toMatch(/is failing \(.*ECONNREFUSED.*\)/);
    expect(logger.error).not.toHaveBeenCalled();
  });

  it('can run again after shutdown, and refuses to run twice at once', async () => {
    telemetry = setupTelemetry({ endpoint: receiver.url, diagLogger: silentLogger() });
    expect(() => setupTelemetry({ endpoint: receiver.url })).toThrow(/already set up/);
    await telemetry.shutdown();
    await telemetry.shutdown(); // idempotent
    telemetry = setupTelemetry({ endpoint: receiver.url, protocol: 'http/json', diagLogger: silentLogger() });
    await createWorkloadResilience(telemetry).execute(async () => 1, {
      endpoint: 'weather',
      attributes: TOOL,
    });
    await telemetry.shutdown();
    expect(receiver.summary().metrics.some((m) => m.name === METRIC_MCP_RESILIENCE_CALLS)).toBe(true);
  });

  it.each([
    [{ endpoint: 'localhost:4318' }, "option 'endpoint' must be an http(s) URL, got 'localhost:4318'"],
    [{ protocol: 'grpc' }, "option 'protocol' must be one of 'http/protobuf', 'http/json', got 'grpc'"],
    [{ metricExportIntervalMs: 0 }, "option 'metricExportIntervalMs' must be a number > 0, got 0"],
    [
      { resourceAttributes: { a: {} } },
      "option 'resourceAttributes' must be an object of strings, numbers and booleans",
    ],
    [{ serviceName: '' }, "option 'serviceName' must be a non-empty string, got ''"],
    [{ sampler: 1 }, "unknown option 'sampler'; known options: serviceName, endpoint, protocol"],
    [
      { servicename: 'x' },
      "setupTelemetry: unknown option 'servicename' (did you mean 'serviceName'?); known options: serviceName,",
    ],
    [{ endpiont: 'http://127.0.0.1:4318' }, "unknown option 'endpiont' (did you mean 'endpoint'?)"],
  ])('rejects %j', (options, message) => {
    expect(() => setupTelemetry(options as never)).toThrow(message);
  });
});
