import { context, metrics, type Span, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createResilience } from '../createResilience.js';
import { createOtelRecorder } from './createOtelRecorder.js';
import {
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_SERVER,
  METRIC_MCP_RESILIENCE_CALLS,
  METRIC_MCP_RESILIENCE_RETRIES,
  SPAN_MCP_RESILIENCE_CALL,
} from './semconv.js';
import { installedVersion } from './test-support/installedVersion.js';
import { TestMetricReader } from './test-support/otelHarness.js';

// The middleware's peer range admits @opentelemetry/api 1.9 (OTel SDK 2) and 1.10 (SDK 3). This package's
// suite is the SDK 2 application (one api, 1.9, as npm installs it for an app on SDK 2); @mcp-resilience/telemetry's
// suite is the SDK 3 one (setupTelemetry on sdk-node 0.301, api 1.10).
const TOOL = {
  [ATTR_MCP_RESILIENCE_SERVER]: 'weather',
  [ATTR_MCP_METHOD_NAME]: 'tools/call',
  [ATTR_GEN_AI_TOOL_NAME]: 'get_forecast',
};

describe('an application on OpenTelemetry SDK 2 (@opentelemetry/api 1.9)', () => {
  afterEach(() => {
    trace.disable();
    metrics.disable();
    context.disable();
  });

  it('is what this suite runs on: api 1.9.x, SDK 2.x', () => {
    expect(installedVersion('@opentelemetry/api')).toMatch(/^1\.9\./);
    expect(installedVersion('@opentelemetry/sdk-trace-base')).toMatch(/^2\./);
    expect(installedVersion('@opentelemetry/sdk-metrics')).toMatch(/^2\./);
  });

  it("records through the recorder's defaults: the SDK's global providers and context, a retry in the app's trace", async () => {
    const exporter = new InMemorySpanExporter();
    const reader = new TestMetricReader();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    const resilience = createResilience({
      recorder: createOtelRecorder(), // no providers given: the globals the app's SDK registered
      jitter: 'none',
      backoffBaseMs: 1,
      adaptiveBackoff: false,
    });

    let attempts = 0;
    const result = await trace.getTracer('app').startActiveSpan('agent step', async (step: Span) => {
      const value = await resilience.execute(
        async () => {
          if (++attempts === 1) throw Object.assign(new Error('HTTP 503'), { status: 503 });
          return 'sunny';
        },
        { endpoint: 'weather', attributes: TOOL },
      );
      step.end();
      return value;
    });

    expect(result).toBe('sunny');
    const spans = exporter.getFinishedSpans();
    const step = spans.find((s) => s.name === 'agent step');
    const call = spans.find((s) => s.name === SPAN_MCP_RESILIENCE_CALL);
    expect(call?.parentSpanContext?.spanId).toBe(step?.spanContext().spanId);
    expect(spans.filter((s) => s.parentSpanContext?.spanId === call?.spanContext().spanId)).toHaveLength(2);
    const { resourceMetrics } = await reader.collect();
    const points = (name: string) =>
      resourceMetrics.scopeMetrics
        .flatMap((s) => s.metrics)
        .filter((m) => m.descriptor.name === name)
        .flatMap((m) =>
          m.dataPoints.map((p) => ({ outcome: p.attributes[ATTR_MCP_RESILIENCE_OUTCOME], value: p.value })),
        );
    expect(points(METRIC_MCP_RESILIENCE_CALLS)).toEqual([{ outcome: 'success', value: 1 }]);
    expect(points(METRIC_MCP_RESILIENCE_RETRIES)).toEqual([{ outcome: 'success', value: 1 }]);
  });
});
