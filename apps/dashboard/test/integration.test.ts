import { createOtelRecorder } from '@mcp-resilience/middleware/otel';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/runtime';
import {
  countingRecorder,
  emptyTruth,
  type GroundTruth,
  runScript,
  type ScriptedCall,
  standardScript,
} from './support/workload';

/*
 * End to end: two agent processes' worth of telemetry, sent by the real OpenTelemetry exporters to a running
 * dashboard: instance A through `setupTelemetry()` (OTLP/HTTP protobuf), instance B through the SDK's JSON
 * exporters with gzip. Each exports its cumulative metrics several times. `/api/v1/summary` must match the
 * ground truth counted from the middleware's own events, exactly.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

type SetupTelemetry = (o: Record<string, unknown>) => {
  recorder: Parameters<typeof countingRecorder>[0];
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
};

const flaky: ScriptedCall[] = Array.from({ length: 8 }, () => ({
  server: 'flaky',
  tool: 'ping',
  steps: [503],
}));

describe('integration: real OTLP exporters → dashboard → /api/v1/summary', () => {
  it('matches the ground truth exactly (calls, retries, efficiency, errors, wasted, MTTF, breakers)', async () => {
    const { setupTelemetry } = (await import('@mcp-resilience/telemetry')) as unknown as {
      setupTelemetry: SetupTelemetry;
    };
    const a = setupTelemetry({
      endpoint: server.url,
      serviceName: 'agent-a',
      metricExportIntervalMs: 60_000,
      resourceAttributes: { 'service.instance.id': 'agent-a-1' },
      diagLogger: null,
    });
    const truthA: GroundTruth = emptyTruth();
    const recorderA = countingRecorder(a.recorder, truthA);

    const resource = resourceFromAttributes({
      'service.name': 'agent-b',
      'service.instance.id': 'agent-b-1',
    });
    const reader = new PeriodicExportingMetricReader({
      exporter: new OTLPMetricExporter({ url: `${server.url}/v1/metrics`, compression: 'gzip' as never }),
      exportIntervalMillis: 60_000,
    });
    const meterProvider = new MeterProvider({ resource, readers: [reader] });
    const tracerProvider = new BasicTracerProvider({
      resource,
      spanProcessors: [
        new BatchSpanProcessor(
          new OTLPTraceExporter({ url: `${server.url}/v1/traces`, compression: 'gzip' as never }),
        ),
      ],
    });
    const truthB: GroundTruth = emptyTruth();
    const recorderB = countingRecorder(createOtelRecorder({ tracerProvider, meterProvider }), truthB);

    try {
      await runScript(recorderA, standardScript('weather'));
      await runScript(recorderB, [...standardScript('weather'), ...standardScript('search')]);
      await a.forceFlush();
      await Promise.all([meterProvider.forceFlush(), tracerProvider.forceFlush()]);
      // second round: the exporters send their cumulative totals again, with more in them
      await runScript(recorderA, [...standardScript('weather').slice(10), ...flaky], {
        breakerConsecutiveFailures: 2,
        breakerBreakMs: 120_000,
      });
      await runScript(recorderB, standardScript('search').slice(0, 20));
      await a.forceFlush();
      await Promise.all([meterProvider.forceFlush(), tracerProvider.forceFlush()]);
    } finally {
      await a.shutdown();
      await Promise.all([meterProvider.shutdown(), tracerProvider.shutdown()]);
    }

    const res = await fetch(`${server.url}/api/v1/summary?from=0&to=${Date.now() + 60_000}`);
    expect(res.status).toBe(200);
    const s = await res.json();
    const sum = (f: (t: GroundTruth) => number) => f(truthA) + f(truthB);
    expect(s.calls).toEqual({
      total: sum((t) => t.calls.total),
      success: sum((t) => t.calls.success),
      failure: sum((t) => t.calls.failure),
      rejected: sum((t) => t.calls.rejected),
    });
    expect(s.calls.rejected).toBeGreaterThan(0);
    const retries = sum((t) => t.retries.total);
    const successful = sum((t) => t.retries.successful);
    expect(s.retries).toEqual({ total: retries, successful, efficiency: successful / retries });
    expect(s.errors.byClass).toEqual({
      retryable: sum((t) => t.errorsByClass.retryable),
      non_retryable: sum((t) => t.errorsByClass.non_retryable),
      conditional: sum((t) => t.errorsByClass.conditional),
    });
    const types = new Set([...Object.keys(truthA.errorsByType), ...Object.keys(truthB.errorsByType)]);
    expect(s.errors.byType).toEqual(
      Object.fromEntries([...types].map((k) => [k, sum((t) => t.errorsByType[k] ?? 0)])),
    );
    expect(s.wastedRetries).toBe(sum((t) => t.wastedRetries));
    expect(s.wastedRetryTimeSeconds).toBeCloseTo(sum((t) => t.wastedTimeMs) / 1000, 9);
    const durations = [...truthA.nonRetryableDurationsMs, ...truthB.nonRetryableDurationsMs];
    expect(s.mttfNonRetryableSeconds).toBeCloseTo(
      durations.reduce((x, y) => x + y, 0) / durations.length / 1000,
      9,
    );
    expect(s.breakers).toContainEqual({
      server: 'flaky',
      tool: null,
      state: 'open',
      since: expect.any(Number),
    });

    const weather = await (
      await fetch(`${server.url}/api/v1/summary?from=0&to=${Date.now() + 60_000}&server=search`)
    ).json();
    expect(weather.calls.total).toBe(standardScript('search').length + 20);
  });
});
