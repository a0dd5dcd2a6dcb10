import {
  type Attributes,
  type Context,
  type ContextManager,
  context,
  type DiagLogger,
  DiagLogLevel,
  diag,
  ROOT_CONTEXT,
} from '@opentelemetry/api';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  type MetricData,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { vi } from 'vitest';

/** A metric reader collected on demand (cumulative temporality, the SDK default). */
export class TestMetricReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

export interface OtelHarness {
  readonly tracerProvider: BasicTracerProvider;
  readonly meterProvider: MeterProvider;
  readonly spanExporter: InMemorySpanExporter;
  /** Finished spans, in the order they ended. */
  spans(): ReadableSpan[];
  /** The finished spans with this name. */
  spansNamed(name: string): ReadableSpan[];
  /** Collects every metric now. */
  collect(): Promise<MetricData[]>;
  /** The metric with this name in the last collection (collects first). */
  metric(name: string): Promise<MetricData | undefined>;
  /** Data points of a metric, as `{ attributes, value }`. */
  points(name: string): Promise<Array<{ attributes: Attributes; value: number | Histogram }>>;
  shutdown(): Promise<void>;
}

/** In-memory tracer and meter providers, passed explicitly to the recorder (no global state). */
export function createOtelHarness(options: { spanExporter?: SpanExporter } = {}): OtelHarness {
  const spanExporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(options.spanExporter ?? spanExporter)],
  });
  const reader = new TestMetricReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const collect = async () => {
    const { resourceMetrics, errors } = await reader.collect();
    if (errors.length > 0) throw errors[0];
    return resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
  };
  const metric = async (name: string) => (await collect()).find((m) => m.descriptor.name === name);
  return {
    tracerProvider,
    meterProvider,
    spanExporter,
    spans: () => spanExporter.getFinishedSpans(),
    spansNamed: (name) => spanExporter.getFinishedSpans().filter((s) => s.name === name),
    collect,
    metric,
    async points(name) {
      const m = await metric(name);
      if (!m) return [];
      return (m.dataPoints as DataPoint<number | Histogram>[]).map((p) => ({
        attributes: p.attributes,
        value: p.value,
      }));
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** A synchronous stack context manager: enough for `context.with(...)` around a synchronous `record`. */
export function installStackContextManager(): () => void {
  const stack: Context[] = [];
  const manager: ContextManager = {
    active: () => stack[stack.length - 1] ?? ROOT_CONTEXT,
    with(ctx, fn, thisArg, ...args) {
      stack.push(ctx);
      try {
        return fn.call(thisArg, ...args);
      } finally {
        stack.pop();
      }
    },
    bind: (_ctx, target) => target,
    enable() {
      return manager;
    },
    disable() {
      stack.length = 0;
      return manager;
    },
  };
  context.setGlobalContextManager(manager);
  return () => context.disable();
}

/** Installs a diag logger whose methods are spies, at WARN level; returns it and a restore function. */
export function spyDiag(): {
  logger: Record<keyof DiagLogger, ReturnType<typeof vi.fn>>;
  restore: () => void;
} {
  const logger = {
    error: vi.fn(),
    warn: vi.fn(),
    info: vi.fn(),
    debug: vi.fn(),
    verbose: vi.fn(),
  };
  diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  return { logger, restore: () => diag.disable() };
}

/** Finds the data point whose attributes equal `attributes` exactly. */
export function pointWith<T extends { attributes: Attributes }>(
  points: readonly T[],
  attributes: Attributes,
): T | undefined {
  const same = (a: Attributes, b: Attributes) => {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
  };
  return points.find((p) => same(p.attributes, attributes));
}
