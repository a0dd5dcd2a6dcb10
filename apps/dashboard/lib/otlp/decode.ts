import {
  type HistogramPoint,
  type Metric,
  type MetricsRequest,
  type NumberPoint,
  OtlpDecodeError,
  type ResourceMetrics,
  type ResourceSpans,
  type Span,
  type Temporality,
  type TracesRequest,
} from './model';
import { ExportMetricsServiceRequest, ExportTraceServiceRequest } from './schema';
import { attributes, double, enumValue, has, id, int64, isObject, list, nanosToMs, str } from './values';

export type Encoding = 'json' | 'protobuf';

function parse(body: Uint8Array, encoding: Encoding, signal: 'traces' | 'metrics'): Record<string, unknown> {
  if (body.length === 0) return {};
  if (encoding === 'json') {
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
    } catch (error) {
      throw new OtlpDecodeError(`invalid JSON: ${(error as Error).message}`);
    }
    if (!isObject(value) || Array.isArray(value)) throw new OtlpDecodeError('expected a JSON object');
    return value;
  }
  try {
    const type = signal === 'traces' ? ExportTraceServiceRequest : ExportMetricsServiceRequest;
    return type.decode(body) as unknown as Record<string, unknown>;
  } catch (error) {
    throw new OtlpDecodeError(`invalid protobuf: ${(error as Error).message}`);
  }
}

const MAX_REASONS = 5;

class Rejections {
  count = 0;
  readonly reasons: string[] = [];
  add(n: number, reason: string) {
    if (n <= 0) return;
    this.count += n;
    if (this.reasons.length < MAX_REASONS && !this.reasons.includes(reason)) this.reasons.push(reason);
  }
}

function temporality(value: unknown, what: string): Temporality {
  const t = enumValue(value, 'temporality', what);
  return t === 1 || t === 2 ? t : 0;
}

function numberPoints(raw: unknown[], what: string, rejections: Rejections): NumberPoint[] {
  const points: NumberPoint[] = [];
  for (const p of raw) {
    if (!isObject(p)) {
      rejections.add(1, `${what}: data point is not an object`);
      continue;
    }
    const timeMs = nanosToMs(p.timeUnixNano, `${what}.timeUnixNano`);
    if (!(timeMs > 0)) {
      rejections.add(1, `${what}: data point without timeUnixNano`);
      continue;
    }
    let value: number;
    if (has(p, 'asInt')) value = int64(p.asInt, `${what}.asInt`);
    else if (has(p, 'asDouble')) value = double(p.asDouble, `${what}.asDouble`);
    else value = 0;
    if (!Number.isFinite(value)) {
      rejections.add(1, `${what}: value is not finite`);
      continue;
    }
    points.push({
      attributes: attributes(p.attributes),
      startMs: nanosToMs(p.startTimeUnixNano, `${what}.startTimeUnixNano`),
      timeMs,
      value,
    });
  }
  return points;
}

function histogramPoints(raw: unknown[], what: string, rejections: Rejections): HistogramPoint[] {
  const points: HistogramPoint[] = [];
  for (const p of raw) {
    if (!isObject(p)) {
      rejections.add(1, `${what}: data point is not an object`);
      continue;
    }
    const timeMs = nanosToMs(p.timeUnixNano, `${what}.timeUnixNano`);
    if (!(timeMs > 0)) {
      rejections.add(1, `${what}: data point without timeUnixNano`);
      continue;
    }
    const count = int64(p.count, `${what}.count`);
    const sum = has(p, 'sum') ? double(p.sum, `${what}.sum`) : 0;
    const buckets = list(p.bucketCounts, `${what}.bucketCounts`).map((v) => int64(v, `${what}.bucketCounts`));
    const bounds = list(p.explicitBounds, `${what}.explicitBounds`).map((v) =>
      double(v, `${what}.explicitBounds`),
    );
    if (!Number.isFinite(sum) || count < 0) {
      rejections.add(1, `${what}: invalid count or sum`);
      continue;
    }
    points.push({
      attributes: attributes(p.attributes),
      startMs: nanosToMs(p.startTimeUnixNano, `${what}.startTimeUnixNano`),
      timeMs,
      count,
      sum,
      bounds,
      buckets,
    });
  }
  return points;
}

function metric(m: unknown, rejections: Rejections): Metric | undefined {
  if (!isObject(m)) {
    rejections.add(1, 'metric is not an object');
    return undefined;
  }
  const name = str(m.name);
  const unit = str(m.unit);
  const what = name || 'metric';
  if (has(m, 'sum') && isObject(m.sum)) {
    const s = m.sum;
    return {
      type: 'sum',
      name,
      unit,
      temporality: temporality(s.aggregationTemporality, `${what}.aggregationTemporality`),
      monotonic: s.isMonotonic === true,
      points: numberPoints(list(s.dataPoints, `${what}.dataPoints`), what, rejections),
    };
  }
  if (has(m, 'gauge') && isObject(m.gauge)) {
    return {
      type: 'gauge',
      name,
      unit,
      points: numberPoints(list(m.gauge.dataPoints, `${what}.dataPoints`), what, rejections),
    };
  }
  if (has(m, 'histogram') && isObject(m.histogram)) {
    const h = m.histogram;
    return {
      type: 'histogram',
      name,
      unit,
      temporality: temporality(h.aggregationTemporality, `${what}.aggregationTemporality`),
      points: histogramPoints(list(h.dataPoints, `${what}.dataPoints`), what, rejections),
    };
  }
  for (const kind of ['exponentialHistogram', 'summary'] as const) {
    if (has(m, kind) && isObject(m[kind])) {
      const n = list((m[kind] as Record<string, unknown>).dataPoints, `${what}.dataPoints`).length;
      rejections.add(n, `${what}: ${kind} data points are not supported`);
      return undefined;
    }
  }
  return undefined;
}

/** Decodes an `ExportMetricsServiceRequest` (JSON or protobuf). Throws `OtlpDecodeError` when malformed. */
export function decodeMetrics(body: Uint8Array, encoding: Encoding): MetricsRequest {
  const request = parse(body, encoding, 'metrics');
  const rejections = new Rejections();
  const resources: ResourceMetrics[] = [];
  let points = 0;
  for (const rm of list(request.resourceMetrics, 'resourceMetrics')) {
    if (!isObject(rm)) throw new OtlpDecodeError('resourceMetrics: expected objects');
    const resource = isObject(rm.resource) ? attributes(rm.resource.attributes) : {};
    const scopes = [];
    for (const sm of list(rm.scopeMetrics, 'scopeMetrics')) {
      if (!isObject(sm)) throw new OtlpDecodeError('scopeMetrics: expected objects');
      const metrics: Metric[] = [];
      for (const raw of list(sm.metrics, 'metrics')) {
        const m = metric(raw, rejections);
        if (m) {
          metrics.push(m);
          points += m.points.length;
        }
      }
      scopes.push({ scope: isObject(sm.scope) ? str(sm.scope.name) : '', metrics });
    }
    resources.push({ resource, scopes });
  }
  return {
    resources,
    rejected: rejections.count,
    rejectedReasons: rejections.reasons,
    points: points + rejections.count,
  };
}

/** Decodes an `ExportTraceServiceRequest` (JSON or protobuf). Throws `OtlpDecodeError` when malformed. */
export function decodeTraces(body: Uint8Array, encoding: Encoding): TracesRequest {
  const request = parse(body, encoding, 'traces');
  const rejections = new Rejections();
  const resources: ResourceSpans[] = [];
  let total = 0;
  for (const rs of list(request.resourceSpans, 'resourceSpans')) {
    if (!isObject(rs)) throw new OtlpDecodeError('resourceSpans: expected objects');
    const resource = isObject(rs.resource) ? attributes(rs.resource.attributes) : {};
    const scopes = [];
    for (const ss of list(rs.scopeSpans, 'scopeSpans')) {
      if (!isObject(ss)) throw new OtlpDecodeError('scopeSpans: expected objects');
      const spans: Span[] = [];
      for (const s of list(ss.spans, 'spans')) {
        total++;
        if (!isObject(s)) {
          rejections.add(1, 'span is not an object');
          continue;
        }
        let traceId: string;
        let spanId: string;
        let parentSpanId: string;
        try {
          traceId = id(s.traceId, 16, 'traceId');
          spanId = id(s.spanId, 8, 'spanId');
          parentSpanId = id(s.parentSpanId, 8, 'parentSpanId');
        } catch (error) {
          rejections.add(1, (error as Error).message);
          continue;
        }
        if (traceId === '' || spanId === '') {
          rejections.add(1, 'span without traceId or spanId');
          continue;
        }
        const status = isObject(s.status) ? s.status : {};
        spans.push({
          traceId,
          spanId,
          parentSpanId,
          name: str(s.name),
          kind: enumValue(s.kind, 'kind', 'span.kind'),
          startMs: nanosToMs(s.startTimeUnixNano, 'span.startTimeUnixNano'),
          endMs: nanosToMs(s.endTimeUnixNano, 'span.endTimeUnixNano'),
          attributes: attributes(s.attributes),
          events: list(s.events, 'span.events')
            .filter(isObject)
            .map((e) => ({
              name: str(e.name),
              timeMs: nanosToMs(e.timeUnixNano, 'event.timeUnixNano'),
              attributes: attributes(e.attributes),
            })),
          statusCode: enumValue(status.code, 'status', 'span.status.code'),
          statusMessage: str(status.message),
        });
      }
      scopes.push({ scope: isObject(ss.scope) ? str(ss.scope.name) : '', spans });
    }
    resources.push({ resource, scopes });
  }
  return { resources, rejected: rejections.count, rejectedReasons: rejections.reasons, spans: total };
}
