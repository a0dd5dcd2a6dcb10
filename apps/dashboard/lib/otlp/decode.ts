import { Rejections, shown } from '../ingest/rejections';
import { decodeTracesProtobuf, MAX_SPAN_EVENTS } from './decode-traces-protobuf';
import type { ElementLimits } from './element-budget';
import { type CountedBody, elementScanner } from './element-scanner';
import {
  type Attrs,
  type Encoding,
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
import {
  ATTRIBUTE_DEFAULTS,
  type AttributeLimits,
  attributes,
  double,
  enumValue,
  has,
  id,
  int64,
  isObject,
  list,
  nanosToMs,
  str,
} from './values';

export type { Encoding };

/** The bytes of a body, its elements counted within `elements` (a `CountedBody` was, as it was decompressed). */
function countedBytes(
  input: Uint8Array | CountedBody,
  encoding: Encoding,
  signal: 'traces' | 'metrics',
  elements: ElementLimits | undefined,
): Uint8Array {
  const body = input instanceof Uint8Array ? input : input.counted;
  if (body.length > 0 && input instanceof Uint8Array)
    elementScanner(encoding, signal, elements).finish(body, body.length);
  return body;
}

/**
 * The request as plain objects, once its elements were counted within `elements` (`OtlpLimitError` beyond,
 * before anything is built; a `CountedBody` was counted as it was decompressed).
 */
function parse(
  input: Uint8Array | CountedBody,
  encoding: Encoding,
  signal: 'traces' | 'metrics',
  elements: ElementLimits | undefined,
): Record<string, unknown> {
  const body = countedBytes(input, encoding, signal, elements);
  if (body.length === 0) return {};
  if (encoding === 'json') {
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
    } catch (error) {
      throw new OtlpDecodeError(`invalid JSON: ${shown((error as Error).message)}`);
    }
    if (!isObject(value) || Array.isArray(value)) throw new OtlpDecodeError('expected a JSON object');
    return value;
  }
  const type = signal === 'traces' ? ExportTraceServiceRequest : ExportMetricsServiceRequest;
  try {
    return type.decode(body) as unknown as Record<string, unknown>;
  } catch (error) {
    throw new OtlpDecodeError(`invalid protobuf: ${(error as Error).message}`);
  }
}

/** Bounds on what a request may carry (see `ATTRIBUTE_DEFAULTS`). */
export interface DecodeLimits {
  /** String attribute values are cut to this many characters (`OTLP_MAX_ATTRIBUTE_LENGTH`). */
  readonly maxAttributeLength?: number;
  /** Decoded elements per request (`ELEMENT_DEFAULTS`): beyond, the request is refused (413). */
  readonly elements?: ElementLimits;
}

const attributeLimits = (limits: DecodeLimits | undefined): AttributeLimits => ({
  ...ATTRIBUTE_DEFAULTS,
  ...(limits?.maxAttributeLength === undefined ? {} : { maxLength: limits.maxAttributeLength }),
});

/**
 * Explicit bounds per histogram point (each bound becomes a stored bucket row): beyond, the point is refused.
 * OTel's default boundaries are 15; exponential-like explicit layouts rarely pass 100.
 */
export const MAX_HISTOGRAM_BOUNDS = 256;

/** A point's explicit bounds or bucket counts, refused before they are read when there are too many. */
function capped(value: unknown, name: string, max: number): unknown[] {
  const l = list(value, name);
  if (l.length > max) throw new OtlpDecodeError(`more than ${max} ${name} (${l.length})`);
  return l;
}

/** Why explicit bounds are refused: not finite, or not strictly ascending (`undefined`: fine). */
function boundsRefusal(bounds: readonly number[]): string | undefined {
  for (const [i, b] of bounds.entries()) {
    if (!Number.isFinite(b)) return 'explicitBounds not finite';
    if (i > 0 && !(b > bounds[i - 1]!)) return 'explicitBounds not strictly ascending';
  }
  return undefined;
}

/** Events kept per span (OTel's default span event count limit). */
const MAX_EVENTS = MAX_SPAN_EVENTS;

const cutName = (s: string, limits: AttributeLimits) =>
  s.length > limits.maxLength ? s.slice(0, limits.maxLength) : s;

/**
 * One data point, or the reason it is refused (a field that cannot be read, such as an integer beyond 64 bits):
 * whatever goes wrong reading it refuses that point only, never the points batched with it.
 */
function point<T>(read: () => T, what: string, rejections: Rejections): T | undefined {
  try {
    return read();
  } catch (error) {
    const message = error instanceof OtlpDecodeError ? error.message : 'unreadable value';
    rejections.add(1, `${what}: ${message}`);
    return undefined;
  }
}

/**
 * A resource's attributes, or the reason they cannot be read (an integer beyond 64 bits...): such a resource's
 * data is refused (partial success), the other resources of the request are kept.
 */
function resourceAttributes(
  resource: unknown,
  limits: AttributeLimits,
): { readonly attrs: Attrs } | { readonly refused: string } {
  if (!isObject(resource)) return { attrs: {} };
  try {
    return { attrs: attributes(resource.attributes, limits) };
  } catch (error) {
    return {
      refused: `resource attributes: ${error instanceof OtlpDecodeError ? error.message : 'unreadable value'}`,
    };
  }
}

function temporality(value: unknown, what: string): Temporality {
  const t = enumValue(value, 'temporality', what);
  return t === 1 || t === 2 ? t : 0;
}

function numberPoints(
  raw: unknown[],
  what: string,
  rejections: Rejections,
  limits: AttributeLimits,
): NumberPoint[] {
  const points: NumberPoint[] = [];
  for (const p of raw) {
    if (!isObject(p)) {
      rejections.add(1, `${what}: data point is not an object`);
      continue;
    }
    const read = point(
      () => {
        const timeMs = nanosToMs(p.timeUnixNano, 'timeUnixNano');
        let value: number;
        if (has(p, 'asInt')) value = int64(p.asInt, 'asInt');
        else if (has(p, 'asDouble')) value = double(p.asDouble, 'asDouble');
        else value = 0;
        const startMs = nanosToMs(p.startTimeUnixNano, 'startTimeUnixNano');
        return { timeMs, value, startMs, attributes: attributes(p.attributes, limits) };
      },
      what,
      rejections,
    );
    if (!read) continue;
    if (!(read.timeMs > 0)) {
      rejections.add(1, `${what}: data point without timeUnixNano`);
      continue;
    }
    if (!Number.isFinite(read.value)) {
      rejections.add(1, `${what}: value is not finite`);
      continue;
    }
    points.push(read);
  }
  return points;
}

function histogramPoints(
  raw: unknown[],
  what: string,
  rejections: Rejections,
  limits: AttributeLimits,
): HistogramPoint[] {
  const points: HistogramPoint[] = [];
  for (const p of raw) {
    if (!isObject(p)) {
      rejections.add(1, `${what}: data point is not an object`);
      continue;
    }
    const read = point(
      () => ({
        timeMs: nanosToMs(p.timeUnixNano, 'timeUnixNano'),
        count: int64(p.count, 'count'),
        sum: has(p, 'sum') ? double(p.sum, 'sum') : 0,
        bounds: capped(p.explicitBounds, 'explicitBounds', MAX_HISTOGRAM_BOUNDS).map((v) =>
          double(v, 'explicitBounds'),
        ),
        buckets: capped(p.bucketCounts, 'bucketCounts', MAX_HISTOGRAM_BOUNDS + 1).map((v) =>
          int64(v, 'bucketCounts'),
        ),
        startMs: nanosToMs(p.startTimeUnixNano, 'startTimeUnixNano'),
        attributes: attributes(p.attributes, limits),
      }),
      what,
      rejections,
    );
    if (!read) continue;
    if (!(read.timeMs > 0)) {
      rejections.add(1, `${what}: data point without timeUnixNano`);
      continue;
    }
    if (!Number.isFinite(read.sum) || read.count < 0) {
      rejections.add(1, `${what}: invalid count or sum`);
      continue;
    }
    const badBounds = boundsRefusal(read.bounds);
    if (badBounds) {
      rejections.add(1, `${what}: ${badBounds}`);
      continue;
    }
    points.push(read);
  }
  return points;
}

function metric(m: unknown, rejections: Rejections, limits: AttributeLimits): Metric | undefined {
  if (!isObject(m)) {
    rejections.add(1, 'metric is not an object');
    return undefined;
  }
  const name = str(m.name);
  const unit = str(m.unit);
  // The name as reasons show it (cut once: a 1 MB name on 50,000 points is not copied per point).
  const what = shown(name) || 'metric';
  if (has(m, 'sum') && isObject(m.sum)) {
    const s = m.sum;
    return {
      type: 'sum',
      name,
      unit,
      temporality: temporality(s.aggregationTemporality, `${what}.aggregationTemporality`),
      monotonic: s.isMonotonic === true,
      points: numberPoints(list(s.dataPoints, `${what}.dataPoints`), what, rejections, limits),
    };
  }
  if (has(m, 'gauge') && isObject(m.gauge)) {
    return {
      type: 'gauge',
      name,
      unit,
      points: numberPoints(list(m.gauge.dataPoints, `${what}.dataPoints`), what, rejections, limits),
    };
  }
  if (has(m, 'histogram') && isObject(m.histogram)) {
    const h = m.histogram;
    return {
      type: 'histogram',
      name,
      unit,
      temporality: temporality(h.aggregationTemporality, `${what}.aggregationTemporality`),
      points: histogramPoints(list(h.dataPoints, `${what}.dataPoints`), what, rejections, limits),
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
export function decodeMetrics(
  body: Uint8Array | CountedBody,
  encoding: Encoding,
  options?: DecodeLimits,
): MetricsRequest {
  const request = parse(body, encoding, 'metrics', options?.elements);
  const limits = attributeLimits(options);
  const rejections = new Rejections();
  const resources: ResourceMetrics[] = [];
  let points = 0;
  for (const rm of list(request.resourceMetrics, 'resourceMetrics')) {
    if (!isObject(rm)) throw new OtlpDecodeError('resourceMetrics: expected objects');
    const resource = resourceAttributes(rm.resource, limits);
    const scopes = [];
    for (const sm of list(rm.scopeMetrics, 'scopeMetrics')) {
      if (!isObject(sm)) throw new OtlpDecodeError('scopeMetrics: expected objects');
      const metrics: Metric[] = [];
      for (const raw of list(sm.metrics, 'metrics')) {
        const m = metric(raw, rejections, limits);
        if (m) {
          metrics.push(m);
          points += m.points.length;
        }
      }
      scopes.push({ scope: isObject(sm.scope) ? str(sm.scope.name) : '', metrics });
    }
    if ('refused' in resource) {
      // read (a malformed structure still fails the request), counted, then dropped with the reason
      const n = scopes.reduce((t, sc) => t + sc.metrics.reduce((u, m) => u + m.points.length, 0), 0);
      rejections.add(n, `${resource.refused} (the resource's data points refused)`);
      points -= n; // counted once, as rejected
      continue;
    }
    resources.push({ resource: resource.attrs, scopes });
  }
  return {
    resources,
    rejected: rejections.count,
    rejectedReasons: [...rejections.result().reasons],
    points: points + rejections.count,
  };
}

/** Decodes an `ExportTraceServiceRequest` (JSON or protobuf). Throws `OtlpDecodeError` when malformed. */
export function decodeTraces(
  body: Uint8Array | CountedBody,
  encoding: Encoding,
  options?: DecodeLimits,
): TracesRequest {
  const limits = attributeLimits(options);
  if (encoding === 'protobuf') {
    // straight from the wire (the same result as protobufjs then `tracesFromObject`, a third of the CPU)
    const bytes = countedBytes(body, encoding, 'traces', options?.elements);
    return bytes.length === 0 ? tracesFromObject({}, limits) : decodeTracesProtobuf(bytes, limits);
  }
  return tracesFromObject(parse(body, encoding, 'traces', options?.elements), limits);
}

/** One span object (OTLP/JSON or protobufjs) in the ingest's shape; throws `OtlpDecodeError` naming the field. */
function spanFromObject(s: Record<string, unknown>, limits: AttributeLimits): Span {
  const status = isObject(s.status) ? s.status : {};
  return {
    traceId: id(s.traceId, 16, 'traceId'),
    spanId: id(s.spanId, 8, 'spanId'),
    parentSpanId: id(s.parentSpanId, 8, 'parentSpanId'),
    name: cutName(str(s.name), limits),
    kind: enumValue(s.kind, 'kind', 'span.kind'),
    startMs: nanosToMs(s.startTimeUnixNano, 'span.startTimeUnixNano'),
    endMs: nanosToMs(s.endTimeUnixNano, 'span.endTimeUnixNano'),
    attributes: attributes(s.attributes, limits),
    events: list(s.events, 'span.events')
      .filter(isObject)
      .slice(0, MAX_EVENTS)
      .map((e) => ({
        name: cutName(str(e.name), limits),
        timeMs: nanosToMs(e.timeUnixNano, 'event.timeUnixNano'),
        attributes: attributes(e.attributes, limits),
      })),
    statusCode: enumValue(status.code, 'status', 'span.status.code'),
    statusMessage: cutName(str(status.message), limits),
  };
}

/**
 * The conversion of a decoded traces request (OTLP/JSON, or protobufjs's objects) into the ingest's shapes:
 * the generic path, which `decodeTracesProtobuf` matches for protobuf bodies.
 */
export function tracesFromObject(request: Record<string, unknown>, limits: AttributeLimits): TracesRequest {
  const rejections = new Rejections();
  const resources: ResourceSpans[] = [];
  let total = 0;
  for (const rs of list(request.resourceSpans, 'resourceSpans')) {
    if (!isObject(rs)) throw new OtlpDecodeError('resourceSpans: expected objects');
    const resource = resourceAttributes(rs.resource, limits);
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
        const span = point(() => spanFromObject(s, limits), 'span', rejections);
        if (!span) continue;
        if (span.traceId === '' || span.spanId === '') {
          rejections.add(1, 'span without traceId or spanId');
          continue;
        }
        spans.push(span);
      }
      scopes.push({ scope: isObject(ss.scope) ? str(ss.scope.name) : '', spans });
    }
    if ('refused' in resource) {
      const n = scopes.reduce((t, sc) => t + sc.spans.length, 0);
      rejections.add(n, `${resource.refused} (the resource's spans refused)`);
      continue;
    }
    resources.push({ resource: resource.attrs, scopes });
  }
  return {
    resources,
    rejected: rejections.count,
    rejectedReasons: [...rejections.result().reasons],
    spans: total,
  };
}
