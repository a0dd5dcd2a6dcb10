import { describe, expect, it } from 'vitest';
import { EmbeddedSource } from '@/lib/data/embedded-source';
import { createIngestSink } from '@/lib/ingest/ingest-sink';
import { decodeMetrics } from '@/lib/otlp/decode';
import { EmbeddedStore } from '@/lib/store/embedded-store';
import { histogramRequest, spanRequest, sumRequest } from './support/otlp-json';
import { type TestServer, tempDir, testServer } from './support/runtime';

/*
 * Hostile or broken OTLP input against the real receiver and store (node:http on 127.0.0.1): every refused
 * point or span is answered with OTLP partial success naming the reason, and never changes what later,
 * valid points count.
 */

const CALLS = 'mcp.resilience.calls';
const DAY = 86_400_000;
const ok = { 'mcp.resilience.server': 'weather', 'mcp.resilience.outcome': 'success' };

async function send(s: TestServer, signal: 'metrics' | 'traces', body: unknown) {
  const r = await fetch(`${s.url}/v1/${signal}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(r.status).toBe(200);
  return (await r.json()) as {
    partialSuccess?: { rejectedDataPoints?: string; rejectedSpans?: string; errorMessage: string };
  };
}

async function totalCalls(s: TestServer): Promise<number> {
  const now = Date.now();
  const r = await fetch(`${s.url}/api/v1/summary?from=${now - 2 * DAY}&to=${now + 600_000}`);
  return ((await r.json()) as { calls: { total: number } }).calls.total;
}

describe('ingest time bounds', () => {
  it('refuses a far-future point with partial success, and the series keeps counting', async () => {
    const s = await testServer();
    const t0 = Date.now();
    const future = await send(
      s,
      'metrics',
      sumRequest(CALLS, [{ startMs: t0, timeMs: t0 + 3650 * DAY, asInt: 1000, attributes: ok }]),
    );
    expect(future.partialSuccess).toEqual({
      rejectedDataPoints: '1',
      errorMessage: expect.stringMatching(/mcp\.resilience\.calls: timestamp more than 300 s in the future/),
    });
    // The same series, later points: before the fix they were answered 200 and dropped for good.
    expect(
      await send(
        s,
        'metrics',
        sumRequest(CALLS, [{ startMs: t0, timeMs: t0 + 1000, asInt: 5, attributes: ok }]),
      ),
    ).toEqual({});
    expect(
      await send(
        s,
        'metrics',
        sumRequest(CALLS, [{ startMs: t0, timeMs: t0 + 2000, asInt: 8, attributes: ok }]),
      ),
    ).toEqual({});
    expect(await totalCalls(s)).toBe(8);
  });

  it('takes a point within the documented skew, refuses one just beyond it', async () => {
    const s = await testServer({ OTLP_MAX_FUTURE_SKEW_MS: '60000' });
    const t0 = Date.now();
    const r = await send(
      s,
      'metrics',
      sumRequest(
        CALLS,
        [
          { timeMs: t0 + 30_000, asInt: 2, attributes: ok },
          { timeMs: t0 + 10 * 60_000, asInt: 7, attributes: { ...ok, 'gen_ai.tool.name': 'b' } },
        ],
        { temporality: 1 },
      ),
    );
    expect(r.partialSuccess?.rejectedDataPoints).toBe('1');
    expect(r.partialSuccess?.errorMessage).toMatch(/60 s in the future \(OTLP_MAX_FUTURE_SKEW_MS\)/);
    expect(await totalCalls(s)).toBe(2);
  });

  it('refuses points older than the retention, and spans outside the bounds', async () => {
    const s = await testServer({ RETENTION_DAYS: '7' });
    const t0 = Date.now();
    const stale = await send(
      s,
      'metrics',
      sumRequest(CALLS, [{ timeMs: t0 - 8 * DAY, asInt: 4, attributes: ok }], { temporality: 1 }),
    );
    expect(stale.partialSuccess?.rejectedDataPoints).toBe('1');
    expect(stale.partialSuccess?.errorMessage).toMatch(
      /older than the retention of 7 day\(s\) \(RETENTION_DAYS\)/,
    );
    const span = await send(
      s,
      'traces',
      spanRequest({ name: 'x', startMs: t0 + 365 * DAY, endMs: t0 + 365 * DAY + 5 }),
    );
    expect(span.partialSuccess?.rejectedSpans).toBe('1');
    expect(span.partialSuccess?.errorMessage).toMatch(/span x: timestamp more than 300 s in the future/);
    const endless = await send(s, 'traces', spanRequest({ name: 'y', startMs: t0, endMs: 0 }));
    expect(endless.partialSuccess).toEqual({
      rejectedSpans: '1',
      errorMessage: 'span y: start, end or event time missing',
    });
    expect(await totalCalls(s)).toBe(0);
  });
});

describe('ingest values', () => {
  it('refuses negative deltas and negative histogram sums or buckets; the total never goes negative', async () => {
    const s = await testServer();
    const t0 = Date.now();
    const r = await send(
      s,
      'metrics',
      sumRequest(
        CALLS,
        [
          { timeMs: t0, asInt: -50, attributes: ok },
          { timeMs: t0, asInt: 3, attributes: { ...ok, 'gen_ai.tool.name': 'b' } },
          { timeMs: t0, asDouble: -0.5, attributes: { ...ok, 'gen_ai.tool.name': 'c' } },
        ],
        { temporality: 1 },
      ),
    );
    expect(r.partialSuccess).toEqual({
      rejectedDataPoints: '2',
      errorMessage: 'mcp.resilience.calls: negative value for a counter',
    });
    const h = await send(
      s,
      'metrics',
      histogramRequest('mcp.resilience.call.duration', { timeMs: t0, count: 2, sum: -3, buckets: [1, 1] }),
    );
    expect(h.partialSuccess?.errorMessage).toMatch(/negative histogram sum/);
    const b = await send(
      s,
      'metrics',
      histogramRequest('mcp.resilience.call.duration', { timeMs: t0, count: 2, sum: 3, buckets: ['-1', 3] }),
    );
    expect(b.partialSuccess?.errorMessage).toMatch(/negative histogram bucket count/);
    const upDown = await send(
      s,
      'metrics',
      sumRequest(CALLS, [{ timeMs: t0, asInt: 9, attributes: ok }], { temporality: 1, monotonic: false }),
    );
    expect(upDown.partialSuccess?.errorMessage).toBe(
      'mcp.resilience.calls: not a monotonic sum (the contract defines a Counter)',
    );
    expect(await totalCalls(s)).toBe(3);
  });

  it('refuses integers beyond 64 bits point by point, keeping the rest of the request', async () => {
    const s = await testServer();
    const t0 = Date.now();
    const r = await send(
      s,
      'metrics',
      sumRequest(
        CALLS,
        [
          { timeMs: t0, asInt: '99999999999999999999', attributes: ok },
          { timeMs: t0, asInt: '4', attributes: { ...ok, 'gen_ai.tool.name': 'b' } },
        ],
        { temporality: 1 },
      ),
    );
    expect(r.partialSuccess).toEqual({
      rejectedDataPoints: '1',
      errorMessage: 'mcp.resilience.calls: asInt: integer beyond the 64-bit range',
    });
    const h = await send(
      s,
      'metrics',
      histogramRequest('mcp.resilience.call.duration', {
        timeMs: t0,
        count: '18446744073709551616',
        sum: 1,
        buckets: [1],
      }),
    );
    expect(h.partialSuccess?.errorMessage).toMatch(/count: integer beyond the 64-bit range/);
    expect(await totalCalls(s)).toBe(4);
  });

  it('refuses histogram bucket counts beyond 2^53 like counts and sums', async () => {
    const s = await testServer();
    const r = await send(
      s,
      'metrics',
      histogramRequest('mcp.resilience.call.duration', {
        timeMs: Date.now(),
        count: 2,
        sum: 1,
        buckets: ['18014398509481984', 2],
      }),
    );
    expect(r.partialSuccess).toEqual({
      rejectedDataPoints: '1',
      errorMessage: 'mcp.resilience.call.duration: histogram bucket count beyond 2^53',
    });
    expect(await totalCalls(s)).toBe(0);
  });

  it('refuses a negative breaker waiting level instead of storing it as 0', async () => {
    const s = await testServer();
    const t0 = Date.now();
    const level = (asInt: number) =>
      sumRequest(
        'mcp.resilience.circuit_breaker.waiting',
        [{ timeMs: t0, asInt, attributes: { 'mcp.resilience.server': 'weather' } }],
        { temporality: 2, monotonic: false },
      );
    const bad = await send(s, 'metrics', level(-3));
    expect(bad.partialSuccess).toEqual({
      rejectedDataPoints: '1',
      errorMessage:
        'mcp.resilience.circuit_breaker.waiting: negative level (calls waiting cannot be below 0)',
    });
    expect((await send(s, 'metrics', level(2))).partialSuccess).toBeUndefined();
  });

  it('refuses only the data of a resource whose attributes hold an integer beyond 64 bits', async () => {
    const s = await testServer();
    const t0 = Date.now();
    const good = sumRequest(CALLS, [{ timeMs: t0, asInt: 4, attributes: ok }], { temporality: 1 });
    const hostile = sumRequest(CALLS, [{ timeMs: t0, asInt: 7, attributes: ok }], { temporality: 1 });
    const [rm] = hostile.resourceMetrics as Array<{ resource: { attributes: unknown[] } }>;
    rm!.resource.attributes.push({ key: 'process.pid', value: { intValue: '99999999999999999999' } });
    // Before the fix: 400 for the whole request, the good resource's points lost too.
    const r = await send(s, 'metrics', {
      resourceMetrics: [...hostile.resourceMetrics, ...good.resourceMetrics],
    });
    expect(r.partialSuccess).toEqual({
      rejectedDataPoints: '1',
      errorMessage:
        "resource attributes: intValue: integer beyond the 64-bit range (the resource's data points refused)",
    });
    expect(await totalCalls(s)).toBe(4);

    const spans = spanRequest({ name: 'tools/call', startMs: t0 - 10, endMs: t0 });
    const [rs] = spans.resourceSpans as Array<{ resource: { attributes: unknown[] } }>;
    rs!.resource.attributes.push({ key: 'n', value: { intValue: '-99999999999999999999' } });
    const t = await send(s, 'traces', spans);
    expect(t.partialSuccess).toEqual({
      rejectedSpans: '1',
      errorMessage:
        "resource attributes: intValue: integer beyond the 64-bit range (the resource's spans refused)",
    });
  });
});

describe('ingest caps', () => {
  it('cuts attribute values to OTLP_MAX_ATTRIBUTE_LENGTH (default 1024)', async () => {
    const long = 'x'.repeat(5000);
    const body = Buffer.from(
      JSON.stringify(
        sumRequest(CALLS, [{ timeMs: Date.now(), asInt: 1, attributes: { 'gen_ai.tool.name': long } }]),
      ),
    );
    const byDefault = decodeMetrics(body, 'json');
    const attr = (m: typeof byDefault) =>
      m.resources[0]!.scopes[0]!.metrics[0]!.points[0]!.attributes['gen_ai.tool.name'] as string;
    expect(attr(byDefault)).toHaveLength(1024);
    expect(attr(decodeMetrics(body, 'json', { maxAttributeLength: 100 }))).toHaveLength(100);

    const s = await testServer({ OTLP_MAX_ATTRIBUTE_LENGTH: '100' });
    await send(
      s,
      'metrics',
      sumRequest(CALLS, [{ timeMs: Date.now(), asInt: 1, attributes: { ...ok, 'gen_ai.tool.name': long } }], {
        temporality: 1,
      }),
    );
    const dims = await s.runtime.source.dimensions({ from: 0, to: Date.now() + 60_000, filters: {} });
    expect(dims.tools).toEqual(['x'.repeat(100)]);
  });

  it('keeps MAX_LABEL_VALUES distinct values per label, the rest as _OTHER, without losing counts', async () => {
    const s = await testServer({ MAX_LABEL_VALUES: '5' });
    const t0 = Date.now();
    const points = Array.from({ length: 20 }, (_, i) => ({
      timeMs: t0,
      asInt: 1,
      attributes: { ...ok, 'gen_ai.tool.name': `tool-${String(i).padStart(2, '0')}` },
    }));
    expect(await send(s, 'metrics', sumRequest(CALLS, points, { temporality: 1 }))).toEqual({});
    const dims = await s.runtime.source.dimensions({ from: 0, to: t0 + 60_000, filters: {} });
    expect(dims.tools).toHaveLength(6);
    expect(dims.tools).toContain('_OTHER');
    expect(dims.tools.filter((t) => t !== '_OTHER')).toEqual([
      'tool-00',
      'tool-01',
      'tool-02',
      'tool-03',
      'tool-04',
    ]);
    expect(await totalCalls(s)).toBe(20);
    // A value already kept stays itself.
    await send(
      s,
      'metrics',
      sumRequest(CALLS, [{ timeMs: t0, asInt: 1, attributes: { ...ok, 'gen_ai.tool.name': 'tool-03' } }], {
        temporality: 1,
      }),
    );
    const again = await s.runtime.source.dimensions({ from: 0, to: t0 + 60_000, filters: {} });
    expect(again.tools).toHaveLength(6);
    expect(await totalCalls(s)).toBe(21);
  });

  it('frees label values once retention removed every fact that used them', async () => {
    let now = Date.now();
    const store = new EmbeddedStore({
      dataDir: tempDir(),
      retentionMs: DAY,
      maxCalls: 100,
      maxAttempts: 100,
      maxLabelValues: 2,
      now: () => now,
    });
    const source = new EmbeddedSource(store, { staleMs: 600_000 });
    const tools = async () => (await source.dimensions({ from: 0, to: now + 60_000, filters: {} })).tools;
    const ingest = (tool: string) =>
      createIngestSink(store).metrics(
        decodeMetrics(
          Buffer.from(
            JSON.stringify(
              sumRequest(
                CALLS,
                [{ timeMs: now, asInt: 1, attributes: { ...ok, 'gen_ai.tool.name': tool } }],
                {
                  temporality: 1,
                },
              ),
            ),
          ),
          'json',
        ),
      );
    try {
      ingest('a');
      ingest('b');
      ingest('c');
      expect(await tools()).toEqual(['_OTHER', 'a', 'b']);
      now += 3 * DAY;
      store.enforceRetention();
      ingest('c');
      expect(await tools()).toEqual(['c']);
    } finally {
      store.close();
    }
  });
});
