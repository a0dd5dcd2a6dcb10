/*
 * Hand-written OTLP/JSON requests, for inputs the SDK never produces (far-future times, negative deltas,
 * integers beyond 64 bits): each field exactly as a hostile or broken exporter could send it.
 */

export const nanos = (ms: number): string => `${BigInt(Math.round(ms)) * 1_000_000n}`;

export interface JsonPoint {
  readonly timeMs: number;
  readonly startMs?: number;
  /** asInt as given (string: any integer text, even beyond 64 bits). */
  readonly asInt?: string | number;
  readonly asDouble?: number;
  readonly attributes?: Record<string, string>;
}

const attrs = (a: Record<string, string> = {}) =>
  Object.entries(a).map(([key, v]) => ({ key, value: { stringValue: v } }));

const resource = (service: string, instance = 'i-1') => ({
  attributes: attrs({ 'service.name': service, 'service.instance.id': instance }),
});

/** An ExportMetricsServiceRequest with one sum metric (cumulative by default, monotonic). */
export function sumRequest(
  name: string,
  points: readonly JsonPoint[],
  options: { temporality?: 1 | 2; service?: string; instance?: string; monotonic?: boolean } = {},
) {
  return {
    resourceMetrics: [
      {
        resource: resource(options.service ?? 'agent', options.instance),
        scopeMetrics: [
          {
            scope: { name: 'test' },
            metrics: [
              {
                name,
                sum: {
                  aggregationTemporality: options.temporality ?? 2,
                  isMonotonic: options.monotonic ?? true,
                  dataPoints: points.map((p) => ({
                    timeUnixNano: nanos(p.timeMs),
                    startTimeUnixNano: nanos(p.startMs ?? 0),
                    ...(p.asInt !== undefined ? { asInt: p.asInt } : { asDouble: p.asDouble ?? 0 }),
                    attributes: attrs(p.attributes),
                  })),
                },
              },
            ],
          },
        ],
      },
    ],
  };
}

/** An ExportMetricsServiceRequest with one histogram point. */
export function histogramRequest(
  name: string,
  p: {
    timeMs: number;
    startMs?: number;
    count: number | string;
    sum: number;
    buckets: Array<number | string>;
  },
  options: { temporality?: 1 | 2 } = {},
) {
  return {
    resourceMetrics: [
      {
        resource: resource('agent'),
        scopeMetrics: [
          {
            metrics: [
              {
                name,
                unit: 's',
                histogram: {
                  aggregationTemporality: options.temporality ?? 1,
                  dataPoints: [
                    {
                      timeUnixNano: nanos(p.timeMs),
                      startTimeUnixNano: nanos(p.startMs ?? p.timeMs - 1000),
                      count: p.count,
                      sum: p.sum,
                      bucketCounts: p.buckets,
                      explicitBounds: p.buckets.slice(1).map((_, i) => (i + 1) * 0.1),
                      attributes: attrs({
                        'mcp.resilience.server': 'weather',
                        'mcp.resilience.outcome': 'success',
                      }),
                    },
                  ],
                },
              },
            ],
          },
        ],
      },
    ],
  };
}

/** An ExportTraceServiceRequest with one span. */
export function spanRequest(span: {
  name: string;
  startMs: number;
  endMs: number;
  attributes?: Record<string, string>;
}) {
  return {
    resourceSpans: [
      {
        resource: resource('agent'),
        scopeSpans: [
          {
            spans: [
              {
                traceId: '0af7651916cd43dd8448eb211c80319c',
                spanId: 'b7ad6b7169203331',
                name: span.name,
                startTimeUnixNano: nanos(span.startMs),
                endTimeUnixNano: nanos(span.endMs),
                attributes: attrs(span.attributes),
              },
            ],
          },
        ],
      },
    ],
  };
}
