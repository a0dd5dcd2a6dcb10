import { describe, expect, it } from 'vitest';
import { decodeMetrics, decodeTraces } from '@/lib/otlp/decode';
import { OtlpLimitError } from '@/lib/otlp/element-budget';
import { OtlpDecodeError } from '@/lib/otlp/model';
import { ExportMetricsServiceRequest } from '@/lib/otlp/schema';
import { int64 } from '@/lib/otlp/values';
import {
  type AttackBody,
  emptyAttributes,
  emptyJsonPoints,
  emptyProtobufPoints,
  hugeAsInt,
  longNameUntimedPoints,
  prototypeKeys,
  wideResourceSeries,
} from './support/attack-bodies';
import { type TestServer, testServer } from './support/runtime';

/*
 * Issue #22 item 1 and 3: the work of a request is bounded by what it decodes to, counted before anything is
 * built, and an attribute value of any shape converts without throwing. Against the real receiver and store.
 */

interface Answer {
  readonly message?: string;
  readonly partialSuccess?: { rejectedDataPoints: string; errorMessage: string };
}

async function send(s: TestServer, a: AttackBody) {
  const r = await fetch(`${s.url}/v1/${a.signal}`, {
    method: 'POST',
    headers: { 'content-type': a.contentType, 'content-encoding': 'gzip' },
    body: new Uint8Array(a.body),
  });
  const text = await r.text();
  return { status: r.status, text, json: () => JSON.parse(text) as Answer };
}

const DAY = 86_400_000;
async function totalCalls(s: TestServer): Promise<number> {
  const now = Date.now();
  const r = await fetch(`${s.url}/api/v1/summary?from=${now - DAY}&to=${now + 600_000}`);
  return ((await r.json()) as { calls: { total: number } }).calls.total;
}

describe('decoded elements bounded per request', () => {
  it('refuses 10.4M empty protobuf points in ~20 KB of gzip with 413 and the reason, and keeps serving', async () => {
    const s = await testServer();
    const a = emptyProtobufPoints(10_400_000);
    expect(a.body.length).toBeLessThan(64 * 1024);
    const r = await send(s, a);
    expect(r.status).toBe(413);
    // protobuf requests are answered with a protobuf google.rpc.Status: the reason is in its bytes
    expect(r.text).toContain('more than 50000 data points (OTLP_MAX_ITEMS_PER_REQUEST) in one request');
    expect((await fetch(`${s.url}/api/health`)).status).toBe(200);
  });

  it('refuses 6.9M empty JSON points and 5M empty attributes the same way', async () => {
    const s = await testServer();
    const points = await send(s, emptyJsonPoints(6_900_000));
    expect(points.status).toBe(413);
    expect(points.json().message).toMatch(/^more than 50000 data points \(OTLP_MAX_ITEMS_PER_REQUEST\)/);
    const attrs = await send(s, emptyAttributes(5_000_000));
    expect(attrs.status).toBe(413);
    expect(attrs.text).toContain('more than 500000 attributes (OTLP_MAX_ATTRIBUTES_PER_REQUEST)');
  });

  it('takes the limits from the environment', async () => {
    const s = await testServer({ OTLP_MAX_ITEMS_PER_REQUEST: '1000' });
    expect((await send(s, emptyJsonPoints(1000))).status).toBe(200);
    const r = await send(s, emptyJsonPoints(1001));
    expect(r.status).toBe(413);
    expect(r.json().message).toMatch(/more than 1000 data points/);
  });

  it('counts every element kind in both encodings, escaped keys included', () => {
    const json = (o: unknown) => Buffer.from(JSON.stringify(o));
    const gauge = (dataPoints: unknown[]) => ({
      resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'g', gauge: { dataPoints } }] }] }],
    });
    const pts = (n: number) => Array.from({ length: n }, () => ({ asDouble: 1 }));
    expect(decodeMetrics(json(gauge(pts(3))), 'json', { elements: { points: 3 } }).points).toBe(3);
    expect(() => decodeMetrics(json(gauge(pts(4))), 'json', { elements: { points: 3 } })).toThrow(
      OtlpLimitError,
    );
    const escaped = Buffer.from(JSON.stringify(gauge(pts(4))).replace('"dataPoints"', '"data\\u0050oints"'));
    expect(() => decodeMetrics(escaped, 'json', { elements: { points: 3 } })).toThrow(
      /more than 3 data points/,
    );
    const proto = (o: unknown) =>
      ExportMetricsServiceRequest.encode(ExportMetricsServiceRequest.fromObject(o as object)).finish();
    expect(() => decodeMetrics(proto(gauge(pts(4))), 'protobuf', { elements: { points: 3 } })).toThrow(
      /more than 3 data points/,
    );
    const kvlist = {
      key: 'k',
      value: {
        kvlistValue: {
          values: [{ key: 'a', value: { arrayValue: { values: [{ intValue: 1 }, { intValue: 2 }] } } }],
        },
      },
    };
    const withAttrs = gauge([{ asDouble: 1, attributes: [kvlist] }]);
    for (const [body, enc] of [
      [json(withAttrs), 'json'],
      [proto(withAttrs), 'protobuf'],
    ] as const) {
      // 2 key-values (k, a), 3 members (a, 1, 2)
      expect(() => decodeMetrics(body, enc, { elements: { attributes: 2, members: 3 } })).not.toThrow();
      expect(() => decodeMetrics(body, enc, { elements: { attributes: 1 } })).toThrow(
        /more than 1 attributes/,
      );
      expect(() => decodeMetrics(body, enc, { elements: { members: 2 } })).toThrow(
        /more than 2 array and kvlist/,
      );
    }
    const span = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', name: 's' };
    const spans = json({ resourceSpans: [{ scopeSpans: [{ spans: [span, span] }] }] });
    expect(() => decodeTraces(spans, 'json', { elements: { spans: 1 } })).toThrow(/more than 1 spans/);
    expect(() =>
      decodeTraces(json({ resourceSpans: [{}, {}] }), 'json', { elements: { resources: 1 } }),
    ).toThrow(/more than 1 resource blocks/);
  });

  it('bounds string lengths, number literals and nesting before parsing', () => {
    const long = Buffer.from(`{"resourceMetrics":[{"schemaUrl":"${'x'.repeat(300_000)}"}]}`);
    expect(() => decodeMetrics(long, 'json')).toThrow(
      /a string of 300000 bytes in a JSON string .*OTLP_MAX_STRING_BYTES/,
    );
    const number = Buffer.from(`{"resourceMetrics":[{"x":${'1'.repeat(100)}}]}`);
    expect(() => decodeMetrics(number, 'json')).toThrow(/a JSON number of 100 characters/);
    const deep = Buffer.from(`{"a":${'['.repeat(100)}${']'.repeat(100)}}`);
    expect(() => decodeMetrics(deep, 'json')).toThrow(/nested deeper than 64 levels/);
    // broken JSON is still a 400 naming the syntax error
    expect(() => decodeMetrics(Buffer.from('{"resourceMetrics":[}'), 'json')).toThrow(OtlpDecodeError);
  });

  it('answers mutated protobuf with a result or a decode error, never anything else', () => {
    const base = Buffer.from(
      ExportMetricsServiceRequest.encode(
        ExportMetricsServiceRequest.fromObject({
          resourceMetrics: [
            {
              resource: { attributes: [{ key: 'service.name', value: { stringValue: 'a' } }] },
              scopeMetrics: [
                {
                  metrics: [
                    {
                      name: 'mcp.resilience.calls',
                      sum: {
                        aggregationTemporality: 2,
                        isMonotonic: true,
                        dataPoints: [
                          { timeUnixNano: 1, asInt: 3, attributes: [{ key: 'k', value: { intValue: 2 } }] },
                        ],
                      },
                    },
                  ],
                },
              ],
            },
          ],
        }),
      ).finish(),
    );
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let decoded = 0;
    for (let i = 0; i < 1500; i++) {
      const b = Buffer.from(base);
      for (let k = 0; k <= rand(3); k++) b[rand(b.length)] = rand(256);
      try {
        decodeMetrics(b, 'protobuf');
        decoded++;
      } catch (error) {
        expect(error instanceof OtlpDecodeError || error instanceof OtlpLimitError).toBe(true);
      }
    }
    expect(decoded).toBeGreaterThan(0);
  });
});

describe('reasons and numbers cut before they cost', () => {
  it('refuses a 500,000-character name (413), and 20,000 untimed points of a 200,000-character one with one short reason', async () => {
    const s = await testServer();
    const a = longNameUntimedPoints(500_000, 20_000);
    expect(a.body.length).toBeLessThan(4096);
    const huge = await send(s, a);
    expect(huge.status).toBe(413);
    // refused as soon as the decompressed name passes the limit, before the rest of it is decompressed
    expect(huge.json().message).toBe(
      'a string longer than 262144 bytes in a JSON string (OTLP_MAX_STRING_BYTES)',
    );
    const r = await send(s, longNameUntimedPoints(200_000, 20_000));
    expect(r.status).toBe(200);
    const partial = r.json().partialSuccess!;
    expect(partial.rejectedDataPoints).toBe('20000');
    expect(partial.errorMessage).toBe(`${'n'.repeat(64)}…: data point without timeUnixNano`);
  });

  it('refuses an asInt of 19 million digits by its length (413), and a 40-digit one per point', async () => {
    const s = await testServer();
    const huge = await send(s, hugeAsInt(19_000_000, Date.now()));
    expect(huge.status).toBe(413);
    expect(huge.json().message).toMatch(/a string longer than 262144 bytes/);
    expect(() => int64('9'.repeat(40), 'asInt')).toThrow(/asInt: integer text longer than 32 characters/);
    const r = await send(s, hugeAsInt(40, Date.now()));
    expect(r.status).toBe(200);
    expect(r.json().partialSuccess).toEqual({
      rejectedDataPoints: '1',
      errorMessage: 'mcp.resilience.calls: asInt: integer text longer than 32 characters',
    });
  });
});

describe('attribute values of every shape', () => {
  it('takes kvlist keys named toString, valueOf and __proto__, and keeps the points batched with them', async () => {
    const s = await testServer();
    const r = await send(s, prototypeKeys(3, 5, Date.now()));
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({});
    expect(await totalCalls(s)).toBe(8);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('decodes such keys as own keys of an object without prototype', () => {
    const body = Buffer.from(
      JSON.stringify({
        resourceMetrics: [
          {
            resource: {
              attributes: [
                { key: '__proto__', value: { stringValue: 'p' } },
                {
                  key: 'toString',
                  value: { kvlistValue: { values: [{ key: 'valueOf', value: { intValue: 1 } }] } },
                },
              ],
            },
          },
        ],
      }),
    );
    const attrs = decodeMetrics(body, 'json').resources[0]!.resource;
    expect(Object.getPrototypeOf(attrs)).toBeNull();
    expect(Object.keys(attrs)).toEqual(['__proto__', 'toString']);
    expect(Object.getOwnPropertyDescriptor(attrs, '__proto__')?.value).toBe('p');
    expect(JSON.stringify(attrs.toString)).toBe('{"valueOf":1}');
  });
});

describe('cumulative series bounded in bytes', () => {
  it('keeps 400 series sharing 128 attributes of 2 KiB in a few tens of kilobytes', async () => {
    const s = await testServer();
    const r = await send(s, wideResourceSeries(128, 2048, 400, Date.now()));
    expect(r.status).toBe(200);
    const db = s.runtime.store!.db;
    const row = db
      .prepare<[], { n: number; bytes: number }>(
        'SELECT COUNT(*) AS n, SUM(length(key)) AS bytes FROM cumulative_state',
      )
      .get()!;
    expect(row.n).toBe(400);
    expect(row.bytes).toBe(400 * 45);
  });

  it('refuses new series beyond OTLP_MAX_CUMULATIVE_SERIES_BYTES, keeping the tracked ones', async () => {
    const s = await testServer({ OTLP_MAX_CUMULATIVE_SERIES_BYTES: String(64 * 1024) });
    const r = await send(s, wideResourceSeries(1, 16, 1000, Date.now()));
    const partial = r.json().partialSuccess!;
    // 93 bytes a row (45 key + 48): 704 rows fit in 64 KiB
    expect(partial.rejectedDataPoints).toBe(String(1000 - Math.floor((64 * 1024) / 93)));
    expect(partial.errorMessage).toMatch(
      /cumulative series state beyond 65536 bytes \(OTLP_MAX_CUMULATIVE_SERIES_BYTES\)/,
    );
  });
});
