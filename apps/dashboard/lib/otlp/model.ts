/*
 * The normalized OTLP shapes the ingest works on, the same whether the request came as JSON or protobuf:
 * ids as lower-case hex, times as epoch milliseconds (float, sub-millisecond kept), 64-bit integers as numbers,
 * attributes as plain values.
 */

export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };
export type Attrs = Record<string, AttrValue>;

export const TEMPORALITY_UNSPECIFIED = 0;
export const TEMPORALITY_DELTA = 1;
export const TEMPORALITY_CUMULATIVE = 2;
export type Temporality = 0 | 1 | 2;

export interface NumberPoint {
  readonly attributes: Attrs;
  readonly startMs: number;
  readonly timeMs: number;
  readonly value: number;
}

export interface HistogramPoint {
  readonly attributes: Attrs;
  readonly startMs: number;
  readonly timeMs: number;
  readonly count: number;
  readonly sum: number;
  readonly bounds: readonly number[];
  readonly buckets: readonly number[];
}

export type Metric =
  | {
      readonly type: 'sum';
      readonly name: string;
      readonly unit: string;
      readonly temporality: Temporality;
      readonly monotonic: boolean;
      readonly points: NumberPoint[];
    }
  | { readonly type: 'gauge'; readonly name: string; readonly unit: string; readonly points: NumberPoint[] }
  | {
      readonly type: 'histogram';
      readonly name: string;
      readonly unit: string;
      readonly temporality: Temporality;
      readonly points: HistogramPoint[];
    };

export interface ScopeMetrics {
  readonly scope: string;
  readonly metrics: Metric[];
}

export interface ResourceMetrics {
  readonly resource: Attrs;
  readonly scopes: ScopeMetrics[];
}

export interface MetricsRequest {
  readonly resources: ResourceMetrics[];
  /** Data points that could not be used (exponential histograms, summaries, points without a time...). */
  readonly rejected: number;
  readonly rejectedReasons: string[];
  /** Every data point of the request, rejected ones included. */
  readonly points: number;
}

export interface SpanEvent {
  readonly name: string;
  readonly timeMs: number;
  readonly attributes: Attrs;
}

export interface Span {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  /** 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Attrs;
  readonly events: SpanEvent[];
  /** 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly statusMessage: string;
}

export interface ScopeSpans {
  readonly scope: string;
  readonly spans: Span[];
}

export interface ResourceSpans {
  readonly resource: Attrs;
  readonly scopes: ScopeSpans[];
}

export interface TracesRequest {
  readonly resources: ResourceSpans[];
  readonly rejected: number;
  readonly rejectedReasons: string[];
  readonly spans: number;
}

export type Signal = 'traces' | 'metrics';

/** How a request body is encoded. */
export type Encoding = 'json' | 'protobuf';

/** A malformed request: answered 400 with this message. */
export class OtlpDecodeError extends Error {
  override readonly name = 'OtlpDecodeError';
}
