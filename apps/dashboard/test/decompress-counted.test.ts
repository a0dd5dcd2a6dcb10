import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decompressCounted } from '@/lib/otlp/decompress-counted';
import { ElementBudget, OtlpLimitError } from '@/lib/otlp/element-budget';
import type { ElementScanner } from '@/lib/otlp/element-scanner';
import { OtlpDecodeError } from '@/lib/otlp/model';
import { JsonScanner } from '@/lib/otlp/scan-json';
import { wireScanner } from '@/lib/otlp/scan-protobuf';
import { ExportMetricsServiceRequest, ExportTraceServiceRequest } from '@/lib/otlp/schema';
import { emptyJsonPoints, emptyProtobufPoints } from './support/attack-bodies';

/*
 * Issue #22: a request's elements are counted while it is decompressed, so a body that decompresses to
 * millions of elements stops at the first one beyond the budget; and counting in pieces counts what counting
 * the whole body does, wherever the pieces are cut.
 */

/** A scanner that remembers how many decompressed bytes it was given. */
function recording(inner: ElementScanner) {
  const seen = { bytes: 0 };
  const scanner: ElementScanner = {
    feed(buf, n) {
      seen.bytes = n;
      inner.feed(buf, n);
    },
    finish(buf, n) {
      seen.bytes = n;
      inner.finish(buf, n);
    },
  };
  return { scanner, seen };
}

const MAX = 20 * 1024 * 1024;
const metricsScanner = (budget = new ElementBudget()) => wireScanner(ExportMetricsServiceRequest, budget);

describe('decompressCounted', () => {
  it('stops decompressing 10.4M empty protobuf points at the first point beyond the budget', async () => {
    const a = emptyProtobufPoints(10_400_000);
    const { scanner, seen } = recording(metricsScanner());
    await expect(decompressCounted(a.body, 'gzip', scanner, MAX)).rejects.toThrow(
      /more than 50000 data points/,
    );
    expect(a.rawBytes).toBeGreaterThan(20_000_000);
    expect(seen.bytes).toBeLessThan(512 * 1024); // 50,001 points are 100 KB
  });

  it('stops decompressing 6.9M empty JSON points the same way', async () => {
    const a = emptyJsonPoints(6_900_000);
    const { scanner, seen } = recording(new JsonScanner(new ElementBudget()));
    await expect(decompressCounted(a.body, 'gzip', scanner, MAX)).rejects.toThrow(
      /more than 50000 data points/,
    );
    expect(seen.bytes).toBeLessThan(512 * 1024);
  });

  it('returns the whole body when it is within the budget, for gzip, deflate and identity', async () => {
    const raw = Buffer.from('{"resourceMetrics":[{"scopeMetrics":[]}]}');
    const { deflateSync } = await import('node:zlib');
    for (const [body, encoding] of [
      [gzipSync(raw), 'gzip'],
      [deflateSync(raw), 'deflate'],
      [raw, 'identity'],
    ] as const) {
      const budget = new ElementBudget();
      const out = await decompressCounted(body, encoding, new JsonScanner(budget), MAX);
      expect(Buffer.from(out.counted).equals(raw)).toBe(true);
      expect(budget.count(0)).toBe(1); // one resource block
    }
  });

  it('refuses a body beyond the decompressed cap (413) and a broken gzip body (400)', async () => {
    const big = gzipSync(Buffer.alloc(300_000, 0x20));
    await expect(
      decompressCounted(big, 'gzip', new JsonScanner(new ElementBudget()), 200_000),
    ).rejects.toThrow(new OtlpLimitError('body larger than 200000 bytes (after decompression)'));
    // identity bodies are counted too, and refused the same way (a rejection, not a throw)
    await expect(
      decompressCounted(
        Buffer.from('{"a":[[[[1]]]]}'),
        'identity',
        new JsonScanner(new ElementBudget({ depth: 3 })),
        MAX,
      ),
    ).rejects.toThrow(/nested deeper than 3 levels/);
    const broken = gzipSync(Buffer.from('{}')).subarray(0, 12);
    await expect(
      decompressCounted(broken, 'gzip', new JsonScanner(new ElementBudget()), MAX),
    ).rejects.toThrow(OtlpDecodeError);
  });
});

/** Counts of every element kind, or the error's kind, scanning `body` in pieces of `piece` bytes (0: whole). */
function countIn(body: Uint8Array, make: (b: ElementBudget) => ElementScanner, piece: number) {
  const budget = new ElementBudget();
  const scanner = make(budget);
  try {
    if (piece > 0) {
      // fed like the decompressor does: a growing prefix of one buffer
      for (let n = piece; n < body.length; n += piece) scanner.feed(body, n);
    }
    scanner.finish(body, body.length);
  } catch (error) {
    return error instanceof OtlpLimitError
      ? 'limit'
      : error instanceof OtlpDecodeError
        ? 'malformed'
        : 'other';
  }
  return Array.from({ length: 10 }, (_, e) => budget.count(e as 0));
}

const kv = (key: string, value: unknown) => ({ key, value });
const request = {
  resourceSpans: [
    {
      resource: { attributes: [kv('service.name', { stringValue: 'a"b\\c' })] },
      scopeSpans: [
        {
          scope: { name: 'esc\u00e9' },
          spans: [1, 2, 3].map((i) => ({
            traceId: '0af7651916cd43dd8448eb211c80319c',
            spanId: `b7ad6b716920333${i}`,
            name: `span ${i}`,
            startTimeUnixNano: String(1_700_000_000_000_000_000 + i),
            attributes: [
              kv('k', {
                kvlistValue: {
                  values: [kv('a', { arrayValue: { values: [{ intValue: 1 }, { doubleValue: -2.5e-3 }] } })],
                },
              }),
              kv('b', { boolValue: true }),
            ],
            events: [{ name: 'e', attributes: [kv('x', { stringValue: '' })] }],
          })),
        },
      ],
    },
  ],
};

describe('counting in pieces', () => {
  const json = Buffer.from(JSON.stringify(request, null, 1));
  const proto = ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(request)).finish();
  const traces = (b: ElementBudget) => wireScanner(ExportTraceServiceRequest, b);
  const jsonScanner = (b: ElementBudget) => new JsonScanner(b);

  it('counts what the whole body counts, wherever the pieces are cut (JSON and protobuf)', () => {
    const wholeJson = countIn(json, jsonScanner, 0);
    const wholeProto = countIn(proto, traces, 0);
    expect(wholeJson).not.toBe('malformed');
    expect((wholeProto as number[])[4]).toBe(3); // spans
    for (const piece of [1, 2, 3, 5, 7, 64]) {
      expect(countIn(json, jsonScanner, piece)).toEqual(wholeJson);
      expect(countIn(proto, traces, piece)).toEqual(wholeProto);
    }
  });

  it('answers mutated protobuf the same in pieces as whole', () => {
    let seed = 11;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 600; i++) {
      const b = Buffer.from(proto);
      for (let k = 0; k <= rand(3); k++) b[rand(b.length)] = rand(256);
      const whole = countIn(b, traces, 0);
      expect(whole).not.toBe('other');
      const pieces = countIn(b, traces, 1 + rand(9));
      // a message cut short is seen at the end in pieces: counted first, then refused the same way
      expect(Array.isArray(pieces) ? 'counted' : pieces).toBe(Array.isArray(whole) ? 'counted' : whole);
      if (Array.isArray(whole)) expect(pieces).toEqual(whole);
    }
  });

  it('refuses a string still arriving once it is longer than the limit', () => {
    const body = Buffer.from(`{"resourceMetrics":[{"schemaUrl":"${'x'.repeat(300_000)}"}]}`);
    const budget = new ElementBudget();
    const scanner = new JsonScanner(budget);
    scanner.feed(body, 100_000);
    expect(() => scanner.feed(body, 270_000)).toThrow(/a string longer than 262144 bytes/);
  });
});
