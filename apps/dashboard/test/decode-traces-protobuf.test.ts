import { describe, expect, it } from 'vitest';
import { decodeTraces, tracesFromObject } from '@/lib/otlp/decode';
import { elementScanner } from '@/lib/otlp/element-scanner';
import type { TracesRequest } from '@/lib/otlp/model';
import { OtlpDecodeError } from '@/lib/otlp/model';
import { ExportTraceServiceRequest } from '@/lib/otlp/schema';
import { ATTRIBUTE_DEFAULTS } from '@/lib/otlp/values';
import { createCapture, serialize } from './support/otel';
import { standardScript } from './support/workload';

/*
 * The direct wire decoder of protobuf trace exports (`decode-traces-protobuf.ts`) must give exactly what the
 * generic path gave (protobufjs, then the object conversion), or fail the same way, on every body: real SDK
 * exports, hand-built edge cases, and thousands of mutated ones.
 */

/** The generic path as `decodeTraces` ran it before: scanner, protobufjs, `tracesFromObject`. */
function generic(bytes: Uint8Array, maxLength = ATTRIBUTE_DEFAULTS.maxLength): TracesRequest {
  elementScanner('protobuf', 'traces', undefined).finish(bytes, bytes.length);
  if (bytes.length === 0) return tracesFromObject({}, { ...ATTRIBUTE_DEFAULTS, maxLength });
  let request: Record<string, unknown>;
  try {
    request = ExportTraceServiceRequest.decode(bytes) as unknown as Record<string, unknown>;
  } catch (error) {
    throw new OtlpDecodeError(`invalid protobuf: ${(error as Error).message}`);
  }
  return tracesFromObject(request, { ...ATTRIBUTE_DEFAULTS, maxLength });
}

type Outcome = { ok: TracesRequest } | { error: string; name: string };
const outcome = (fn: () => TracesRequest): Outcome => {
  try {
    return { ok: fn() };
  } catch (error) {
    return { error: (error as Error).message, name: (error as Error).name };
  }
};

function expectSame(bytes: Uint8Array, maxLength?: number) {
  const limits = maxLength === undefined ? undefined : { maxAttributeLength: maxLength };
  const direct = outcome(() => decodeTraces(bytes, 'protobuf', limits));
  const before = outcome(() => generic(bytes, maxLength));
  expect(direct).toEqual(before);
  // a prototype-less attribute object stays prototype-less (keys such as `__proto__` are plain keys)
  if ('ok' in direct && 'ok' in before) {
    const protos = (r: TracesRequest) =>
      r.resources.flatMap((x) => [
        Object.getPrototypeOf(x.resource),
        ...x.scopes.flatMap((s) => s.spans.map((sp) => Object.getPrototypeOf(sp.attributes))),
      ]);
    expect(protos(direct.ok)).toEqual(protos(before.ok));
  }
  return direct;
}

const kv = (key: string, value: Record<string, unknown>) => ({ key, value });
const id = (n: number, fill: number) => Buffer.alloc(n, fill);

/** A request with every shape the conversion knows (and some it refuses). */
function edgeCases(): Uint8Array {
  const deep = (d: number): Record<string, unknown> =>
    d === 0 ? { stringValue: 'bottom' } : { arrayValue: { values: [deep(d - 1), { intValue: d }] } };
  const span = (extra: Record<string, unknown>) => ({
    traceId: id(16, 1),
    spanId: id(8, 2),
    parentSpanId: id(8, 3),
    name: 'tools/call get',
    kind: 3,
    startTimeUnixNano: 1_700_000_000_123_456_789n,
    endTimeUnixNano: 18_446_744_073_709_551_615n, // fixed64 with the high bit set
    status: { code: 2, message: 'HTTP 503 – temporär' },
    ...extra,
  });
  const message = ExportTraceServiceRequest.fromObject({
    resourceSpans: [
      {
        resource: {
          attributes: [kv('service.name', { stringValue: 'agent' }), kv('__proto__', { stringValue: 'x' })],
        },
        scopeSpans: [
          {
            scope: { name: 'scope-a', version: '1.0', attributes: [kv('s', { boolValue: true })] },
            spans: [
              span({
                attributes: [
                  kv('str', { stringValue: 'ünïcødé ✓ 𝄞' }),
                  kv('long', { stringValue: 'y'.repeat(3000) }),
                  kv('bool', { boolValue: true }),
                  kv('neg', { intValue: '-9223372036854775808' }),
                  kv('big', { intValue: '9007199254740993' }),
                  kv('double', { doubleValue: -0.5 }),
                  kv('nan', { doubleValue: Number.NaN }),
                  kv('bytes', { bytesValue: Buffer.from('hello bytes') }),
                  kv('empty', {}),
                  kv('deep', deep(12)),
                  kv('kv', {
                    kvlistValue: {
                      values: [kv('toString', { stringValue: 'a' }), kv('valueOf', { intValue: 7 })],
                    },
                  }),
                  kv('', { stringValue: 'empty key' }),
                  kv('str', { stringValue: 'later value wins' }),
                ],
                events: Array.from({ length: 140 }, (_, i) => ({
                  timeUnixNano: 1_700_000_000_000_000_000n + BigInt(i),
                  name: `event ${i}`,
                  attributes: [kv('i', { intValue: i })],
                })),
              }),
              span({
                attributes: Array.from({ length: 150 }, (_, i) => kv(`k${i}`, { intValue: i })),
              }),
              span({ traceId: id(15, 1) }), // refused: wrong length
              span({ spanId: Buffer.alloc(0) }), // refused: no span id
              span({ parentSpanId: id(9, 1) }),
              span({ kind: -1, status: {} }),
            ],
          },
          { spans: [span({ name: '' })] },
        ],
      },
      { scopeSpans: [{ scope: {}, spans: [span({})] }] }, // no resource
    ],
  });
  return ExportTraceServiceRequest.encode(message).finish();
}

/** A byte-level varint, for hand-built fields. */
const varint = (n: number): number[] => {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
};
const ld = (field: number, bytes: number[]) => [...varint(field * 8 + 2), ...varint(bytes.length), ...bytes];

/** Deterministic bytes (xorshift), so a failure can be replayed. */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

describe('decodeTracesProtobuf (direct from the wire) against protobufjs and the generic conversion', () => {
  it('gives the same request for a real SDK export', async () => {
    const c = createCapture();
    await c.run(standardScript());
    const bytes = serialize.tracesProto(c.spans());
    const r = expectSame(bytes);
    expect('ok' in r && r.ok.spans).toBe(c.spans().length);
  });

  it('gives the same request for every value shape, cap and refusal, with the default and a small string cap', () => {
    const bytes = edgeCases();
    const r = expectSame(bytes);
    expect('ok' in r && r.ok.rejected).toBe(3);
    expectSame(bytes, 10);
  });

  it('merges repeated message fields, keeps the last scalar and every AnyValue member, as protobufjs does', () => {
    // a span with two status messages, two names, a KeyValue whose value comes in two parts, a group field
    const spanBytes = [
      ...ld(1, [...id(16, 7)]),
      ...ld(2, [...id(8, 8)]),
      ...ld(5, [...Buffer.from('first')]),
      ...ld(5, [...Buffer.from('second')]),
      ...ld(15, [...ld(2, [...Buffer.from('msg')])]),
      ...ld(15, [...varint(3 * 8), ...varint(2)]),
      ...ld(9, [...ld(1, [...Buffer.from('k')]), ...ld(2, [...varint(3 * 8), ...varint(5)])]),
      ...ld(9, [
        ...ld(1, [...Buffer.from('k2')]),
        ...ld(2, [...varint(3 * 8), ...varint(5)]),
        ...ld(2, [...ld(1, [...Buffer.from('s')])]),
      ]),
      ...ld(9, [...ld(1, [...Buffer.from('b')]), ...ld(2, [...varint(2 * 8), 0x80, 0x80, 0x80, 0x80, 0x10])]),
      ...varint(99 * 8 + 3),
      ...varint(1 * 8),
      1,
      ...varint(99 * 8 + 4), // an unknown group, skipped
      0x39,
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8, // field 7 fixed64 (start time)
    ];
    const body = Uint8Array.from(ld(1, ld(2, ld(2, spanBytes))));
    const r = expectSame(body);
    expect('ok' in r && r.ok.resources[0]!.scopes[0]!.spans[0]).toMatchObject({
      name: 'second',
      statusCode: 2,
      statusMessage: 'msg',
      attributes: { k: 5, k2: 's', b: true },
    });
  });

  it('refuses invalid UTF-8 in any string field the same way (the whole request, 400)', () => {
    const bad = [0x68, 0xc3, 0x28];
    for (const spanBytes of [
      [...ld(1, [...id(16, 1)]), ...ld(2, [...id(8, 1)]), ...ld(5, bad)],
      [...ld(1, [...id(16, 1)]), ...ld(2, [...id(8, 1)]), ...ld(3, bad)], // traceState: not kept, still checked
      [...ld(9, [...ld(1, bad)])],
      [...ld(11, [...ld(2, [...bad, ...Buffer.alloc(40, 0x61)])])],
    ]) {
      const r = expectSame(Uint8Array.from(ld(1, ld(2, ld(2, spanBytes)))));
      expect(r).toMatchObject({ name: 'OtlpDecodeError' });
    }
  });

  it('gives the same outcome on 1,500 mutated exports (bytes flipped, cut, duplicated)', async () => {
    const c = createCapture();
    await c.run(standardScript());
    const seeds = [serialize.tracesProto(c.spans().slice(0, 12)), edgeCases()];
    const next = rng(22);
    let decoded = 0;
    for (let i = 0; i < 1500; i++) {
      const base = seeds[i % seeds.length]!;
      const b = Buffer.from(base);
      const kind = i % 3;
      if (kind === 0)
        for (let k = 0; k < 1 + (i % 4); k++) b[Math.floor(next() * b.length)] = Math.floor(next() * 256);
      const body =
        kind === 1
          ? b.subarray(0, Math.floor(next() * b.length))
          : kind === 2
            ? Buffer.concat([b, b.subarray(Math.floor(next() * b.length))])
            : b;
      const r = expectSame(body);
      if ('ok' in r) decoded++;
    }
    expect(decoded).toBeGreaterThan(150);
  });
});
