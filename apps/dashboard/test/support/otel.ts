import { createOtelRecorder, type OtelRecorderOptions } from '@mcp-resilience/middleware/otel';
import {
  JsonMetricsSerializer,
  JsonTraceSerializer,
  ProtobufMetricsSerializer,
  ProtobufTraceSerializer,
} from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { countingRecorder, emptyTruth, type GroundTruth, runScript, type ScriptedCall } from './workload';

class ManualReader extends MetricReader {
  protected override onShutdown() {
    return Promise.resolve();
  }
  protected override onForceFlush() {
    return Promise.resolve();
  }
}

/**
 * In-memory SDK providers with the middleware's recorder (and its `options`, e.g. `costPerAttempt`): collect
 * real ResourceMetrics and spans.
 */
export function createCapture(
  resource: Record<string, string> = { 'service.name': 'test-agent', 'service.instance.id': 'i-1' },
  options: Omit<OtelRecorderOptions, 'tracerProvider' | 'meterProvider'> = {},
) {
  const spans = new InMemorySpanExporter();
  const res = resourceFromAttributes(resource);
  const tracerProvider = new BasicTracerProvider({
    resource: res,
    spanProcessors: [new SimpleSpanProcessor(spans)],
  });
  const reader = new ManualReader();
  const meterProvider = new MeterProvider({ resource: res, readers: [reader] });
  const truth: GroundTruth = emptyTruth();
  const recorder = countingRecorder(createOtelRecorder({ ...options, tracerProvider, meterProvider }), truth);
  return {
    truth,
    recorder,
    /** For synthetic instruments (numbers other middleware emits). */
    meter: meterProvider.getMeter('synthetic'),
    run: (calls: readonly ScriptedCall[], options?: Record<string, unknown>) =>
      runScript(recorder, calls, options),
    async metrics(): Promise<ResourceMetrics> {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics;
    },
    spans: (): ReadableSpan[] => spans.getFinishedSpans(),
    resetSpans: () => spans.reset(),
  };
}

export const serialize = {
  metricsProto: (rm: ResourceMetrics) => ProtobufMetricsSerializer.serializeRequest(rm)!,
  metricsJson: (rm: ResourceMetrics) => JsonMetricsSerializer.serializeRequest(rm)!,
  tracesProto: (spans: ReadableSpan[]) => ProtobufTraceSerializer.serializeRequest(spans)!,
  tracesJson: (spans: ReadableSpan[]) => JsonTraceSerializer.serializeRequest(spans)!,
};
