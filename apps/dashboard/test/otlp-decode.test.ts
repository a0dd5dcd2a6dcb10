import { gzipSync } from 'node:zlib';
import {
  ATTR_MCP_RESILIENCE_ATTEMPT,
  EVENT_MCP_RESILIENCE_CLASSIFICATION,
  METRIC_MCP_RESILIENCE_CALL_DURATION,
  METRIC_MCP_RESILIENCE_CALLS,
  METRIC_MCP_RESILIENCE_RETRIES,
  SPAN_MCP_RESILIENCE_CALL,
} from '@mcp-resilience/middleware/semconv';
import { describe, expect, it } from 'vitest';
import { decodeMetrics, decodeTraces } from '@/lib/otlp/decode';
import type { MetricsRequest } from '@/lib/otlp/model';
import { OtlpDecodeError } from '@/lib/otlp/model';
import { ExportMetricsServiceRequest } from '@/lib/otlp/schema';
import { createCapture, serialize } from './support/otel';
import { standardScript } from './support/workload';

const total = (req: MetricsRequest, name: string) =>
  req.resources
    .flatMap((r) => r.scopes.flatMap((s) => s.metrics))
    .filter((m) => m.name === name)
    .flatMap((m) => m.points as Array<{ value?: number; count?: number }>)
    .reduce((s, p) => s + (p.value ?? p.count ?? 0), 0);

describe('decodeMetrics', () => {
  it('decodes the real SDK protobuf and JSON encodings to the same numbers', async () => {
    const c = createCapture();
    await c.run(standardScript());
    const rm = await c.metrics();
    const proto = decodeMetrics(serialize.metricsProto(rm), 'protobuf');
    const json = decodeMetrics(serialize.metricsJson(rm), 'json');
    expect(proto.rejected).toBe(0);
    expect(total(proto, METRIC_MCP_RESILIENCE_CALLS)).toBe(c.truth.calls.total);
    expect(total(proto, METRIC_MCP_RESILIENCE_RETRIES)).toBe(c.truth.retries.total);
    expect(total(proto, METRIC_MCP_RESILIENCE_CALL_DURATION)).toBe(c.truth.calls.total);
    expect(json).toEqual(proto);
    const sum = proto.resources[0]!.scopes[0]!.metrics.find((m) => m.name === METRIC_MCP_RESILIENCE_CALLS)!;
    expect(sum).toMatchObject({ type: 'sum', temporality: 2, monotonic: true });
    expect(proto.resources[0]!.resource['service.instance.id']).toBe('i-1');
    const hist = proto.resources[0]!.scopes[0]!.metrics.find(
      (m) => m.name === METRIC_MCP_RESILIENCE_CALL_DURATION,
    )!;
    expect(hist.type).toBe('histogram');
    const p = hist.points[0] as unknown as {
      bounds: number[];
      buckets: number[];
      startMs: number;
      timeMs: number;
    };
    expect(p.bounds[0]).toBe(0.005);
    expect(p.buckets.length).toBe(p.bounds.length + 1);
    expect(p.timeMs).toBeGreaterThan(p.startMs);
    expect(Math.abs(p.timeMs - Date.now())).toBeLessThan(60_000);
  });

  it('handles the JSON quirks: int64 as strings or numbers, enums as integers or names, NaN strings', () => {
    const body = {
      resourceMetrics: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'a' } }] },
          scopeMetrics: [
            {
              scope: { name: 's' },
              metrics: [
                {
                  name: 'c1',
                  sum: {
                    aggregationTemporality: 'AGGREGATION_TEMPORALITY_CUMULATIVE',
                    isMonotonic: true,
                    dataPoints: [
                      {
                        startTimeUnixNano: '1795962757563000000',
                        timeUnixNano: '1795962767563000123',
                        asInt: '42',
                      },
                      { startTimeUnixNano: 1795962757563000000, timeUnixNano: 1795962767563000000, asInt: 7 },
                      { timeUnixNano: '1795962767563000000', asDouble: 'Infinity' },
                      { asDouble: 1 },
                    ],
                  },
                },
                {
                  name: 'g',
                  gauge: { dataPoints: [{ timeUnixNano: '1795962767563000000', asDouble: 'NaN' }] },
                },
                { name: 'e', exponentialHistogram: { dataPoints: [{}, {}] } },
                {
                  name: 'h',
                  histogram: {
                    aggregationTemporality: 2,
                    dataPoints: [
                      {
                        timeUnixNano: '1795962767563000000',
                        count: '3',
                        sum: 1.5,
                        bucketCounts: ['1', 2],
                        explicitBounds: [0.5],
                        attributes: [{ key: 'k', value: { intValue: '9007199254740993' } }],
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
    const r = decodeMetrics(Buffer.from(JSON.stringify(body)), 'json');
    const metrics = r.resources[0]!.scopes[0]!.metrics;
    expect(metrics[0]!.points.map((p) => (p as { value: number }).value)).toEqual([42, 7]);
    expect(metrics[0]!.points[0]!.timeMs).toBeCloseTo(1795962767563, 3);
    expect(metrics[0]).toMatchObject({ temporality: 2 });
    expect(r.rejected).toBe(1 + 1 + 1 + 2); // infinite, no time, NaN gauge, two exponential points
    expect(r.rejectedReasons.join(' ')).toMatch(/exponentialHistogram/);
    const h = metrics.find((m) => m.name === 'h')!.points[0] as unknown as {
      count: number;
      buckets: number[];
      attributes: Record<string, unknown>;
    };
    expect(h.count).toBe(3);
    expect(h.buckets).toEqual([1, 2]);
    expect(h.attributes.k).toBe(9007199254740992);
  });

  it('rejects malformed input with a message', () => {
    expect(() => decodeMetrics(Buffer.from('{not json'), 'json')).toThrow(OtlpDecodeError);
    expect(() => decodeMetrics(Buffer.from('[1,2]'), 'json')).toThrow(/JSON object/);
    expect(() => decodeMetrics(Buffer.from('{"resourceMetrics": 3}'), 'json')).toThrow(
      /resourceMetrics: expected an array/,
    );
    expect(() => decodeMetrics(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]), 'protobuf')).toThrow(
      /invalid protobuf/,
    );
    // A point whose field cannot be read is refused alone (partial success), the request is not.
    const soon = decodeMetrics(
      Buffer.from(
        JSON.stringify({
          resourceMetrics: [
            {
              scopeMetrics: [{ metrics: [{ name: 'x', sum: { dataPoints: [{ timeUnixNano: 'soon' }] } }] }],
            },
          ],
        }),
      ),
      'json',
    );
    expect(soon.rejected).toBe(1);
    expect(soon.rejectedReasons[0]).toMatch(/x: timeUnixNano: expected a 64-bit integer/);
  });

  it('accepts an empty body as an empty request', () => {
    expect(decodeMetrics(new Uint8Array(0), 'protobuf').resources).toEqual([]);
    expect(decodeMetrics(Buffer.from('{}'), 'json').points).toBe(0);
  });

  it('ignores unknown protobuf fields', () => {
    const known = ExportMetricsServiceRequest.encode(
      ExportMetricsServiceRequest.fromObject({ resourceMetrics: [{ schemaUrl: 'x' }] }),
    ).finish();
    const withUnknown = Buffer.concat([Buffer.from(known), Buffer.from([0xa0, 0x06, 0x01])]); // field 100, varint 1
    expect(decodeMetrics(withUnknown, 'protobuf').resources).toHaveLength(1);
  });
});

describe('decodeTraces', () => {
  it('decodes the real SDK protobuf and JSON: hex ids, kinds, status, events', async () => {
    const c = createCapture();
    await c.run(standardScript());
    const spans = c.spans();
    const proto = decodeTraces(serialize.tracesProto(spans), 'protobuf');
    const json = decodeTraces(serialize.tracesJson(spans), 'json');
    expect(json).toEqual(proto);
    const all = proto.resources.flatMap((r) => r.scopes.flatMap((s) => s.spans));
    expect(all).toHaveLength(spans.length);
    const call = all.find((s) => s.name === SPAN_MCP_RESILIENCE_CALL)!;
    expect(call.kind).toBe(1);
    expect(call.traceId).toBe(spans.find((s) => s.name === SPAN_MCP_RESILIENCE_CALL)!.spanContext().traceId);
    const failedAttempt = all.find(
      (s) => s.statusCode === 2 && s.attributes[ATTR_MCP_RESILIENCE_ATTEMPT] === 1,
    )!;
    expect(failedAttempt.kind).toBe(3);
    expect(failedAttempt.parentSpanId).toMatch(/^[0-9a-f]{16}$/);
    expect(failedAttempt.events.some((e) => e.name === EVENT_MCP_RESILIENCE_CLASSIFICATION)).toBe(true);
  });

  it('accepts upper-case hex and base64 ids, rejects bad ones as partial', () => {
    const span = (traceId: string, spanId: string) => ({
      traceId,
      spanId,
      name: 'x',
      kind: 'SPAN_KIND_CLIENT',
      startTimeUnixNano: '1',
      endTimeUnixNano: '2',
    });
    const body = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                span('5B8EFFF798038103D269B633813FC60C', 'EEE19B7EC3C1B174'),
                span(
                  Buffer.from('5b8efff798038103d269b633813fc60c', 'hex').toString('base64'),
                  Buffer.from('eee19b7ec3c1b174', 'hex').toString('base64'),
                ),
                span('xyz', 'eee19b7ec3c1b174'),
                span('', ''),
              ],
            },
          ],
        },
      ],
    };
    const r = decodeTraces(Buffer.from(JSON.stringify(body)), 'json');
    const spans = r.resources[0]!.scopes[0]!.spans;
    expect(spans.map((s) => s.traceId)).toEqual([
      '5b8efff798038103d269b633813fc60c',
      '5b8efff798038103d269b633813fc60c',
    ]);
    expect(spans[0]!.kind).toBe(3);
    expect(r.rejected).toBe(2);
    expect(r.spans).toBe(4);
  });

  it('gzip is the transport concern of the receiver, not of the decoder', () => {
    expect(() => decodeTraces(gzipSync(Buffer.from('{}')), 'json')).toThrow(OtlpDecodeError);
  });
});
