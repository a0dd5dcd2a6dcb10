import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedSource } from '@/lib/data/embedded-source';
import { createIngestSink } from '@/lib/ingest/ingest-sink';
import { decodeMetrics, MAX_HISTOGRAM_BOUNDS } from '@/lib/otlp/decode';
import { EmbeddedStore, type EmbeddedStoreOptions } from '@/lib/store/embedded-store';
import { nanos, sumRequest } from './support/otlp-json';
import { tempDir } from './support/runtime';

/*
 * What a hostile exporter could make the store keep without bound: one cumulative series state per distinct
 * attribute set, one bucket row per histogram bound, one transition row per breaker change. Each is capped;
 * points beyond are refused with an OTLP partial-success reason.
 */

const CALLS = 'mcp.resilience.calls';
const DAY = 86_400_000;
const ok = { 'mcp.resilience.server': 'weather', 'mcp.resilience.outcome': 'success' };

const stores: EmbeddedStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

function open(options: Partial<EmbeddedStoreOptions> = {}): EmbeddedStore {
  const store = new EmbeddedStore({
    dataDir: tempDir(),
    retentionMs: DAY,
    maxCalls: 100,
    maxAttempts: 100,
    ...options,
  });
  stores.push(store);
  return store;
}

const json = (body: unknown) => decodeMetrics(Buffer.from(JSON.stringify(body)), 'json');

async function totalCalls(store: EmbeddedStore, now: number): Promise<number> {
  const source = new EmbeddedSource(store, { staleMs: 600_000 });
  const s = await source.summary({ from: now - DAY, to: now + 60_000, filters: {} });
  return s.calls.total;
}

describe('cumulative series cap (OTLP_MAX_CUMULATIVE_SERIES)', () => {
  it('refuses points of new series beyond the cap with a reason; tracked series keep counting', async () => {
    let now = Date.now();
    const store = open({ maxCumulativeSeries: 2, now: () => now });
    const t0 = now - 10_000;
    const point = (id: string, value: number) =>
      json(
        sumRequest(CALLS, [
          { startMs: t0, timeMs: now, asInt: value, attributes: { ...ok, 'random.attr': id } },
        ]),
      );
    expect(createIngestSink(store).metrics(point('a', 1))).toEqual({ rejected: 0 });
    expect(createIngestSink(store).metrics(point('b', 1))).toEqual({ rejected: 0 });
    const refused = createIngestSink(store).metrics(point('c', 1));
    expect(refused.rejected).toBe(1);
    expect(refused.message).toMatch(/too many cumulative series \(OTLP_MAX_CUMULATIVE_SERIES = 2\)/);
    expect(store.trackedSeries).toBe(2);
    // the series already tracked keep working
    now += 1000;
    expect(createIngestSink(store).metrics(point('a', 5))).toEqual({ rejected: 0 });
    // (the first points started before the store: baselined, only the increase of `a` counts)
    expect(await totalCalls(store, now)).toBe(4);
    expect(store.db.prepare('SELECT COUNT(*) FROM cumulative_state').pluck().get()).toBe(2);
  });

  it('frees room once retention dropped stale series', () => {
    let now = Date.now();
    const store = open({ maxCumulativeSeries: 1, now: () => now });
    const point = (id: string) =>
      json(
        sumRequest(CALLS, [
          { startMs: now - 1000, timeMs: now, asInt: 1, attributes: { ...ok, 'random.attr': id } },
        ]),
      );
    expect(createIngestSink(store).metrics(point('a')).rejected).toBe(0);
    expect(createIngestSink(store).metrics(point('b')).rejected).toBe(1);
    now += 3 * DAY;
    store.enforceRetention();
    expect(store.trackedSeries).toBe(0);
    expect(createIngestSink(store).metrics(point('b')).rejected).toBe(0);
  });

  it('takes only the room left from one request with many new series', () => {
    const now = Date.now();
    const store = open({ maxCumulativeSeries: 3, now: () => now });
    const points = Array.from({ length: 10 }, (_, i) => ({
      startMs: now - 1000,
      timeMs: now,
      asInt: 1,
      attributes: { ...ok, 'random.attr': `v${i}` },
    }));
    const r = createIngestSink(store).metrics(json(sumRequest(CALLS, points)));
    expect(r.rejected).toBe(7);
    expect(store.trackedSeries).toBe(3);
    expect(store.db.prepare('SELECT COUNT(*) FROM cumulative_state').pluck().get()).toBe(3);
  });
});

/** A delta call-duration histogram point with the given explicit bounds (one count in each bucket). */
function histogram(timeMs: number, bounds: unknown[]) {
  const buckets = Array.from({ length: bounds.length + 1 }, () => 1);
  return {
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'agent' } }] },
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'mcp.resilience.call.duration',
                unit: 's',
                histogram: {
                  aggregationTemporality: 1,
                  dataPoints: [
                    {
                      timeUnixNano: nanos(timeMs),
                      startTimeUnixNano: nanos(timeMs - 1000),
                      count: buckets.length,
                      sum: 1,
                      bucketCounts: buckets,
                      explicitBounds: bounds,
                      attributes: [
                        { key: 'mcp.resilience.server', value: { stringValue: 'weather' } },
                        { key: 'mcp.resilience.outcome', value: { stringValue: 'success' } },
                      ],
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

describe('histogram explicit bounds', () => {
  const ascending = (n: number) => Array.from({ length: n }, (_, i) => (i + 1) * 0.001);
  const bucketRows = (store: EmbeddedStore) =>
    store.db.prepare('SELECT COUNT(*) FROM facts WHERE metric = 9').pluck().get() as number;

  it(`refuses a point with more than ${MAX_HISTOGRAM_BOUNDS} bounds before reading them, with a reason`, () => {
    expect(MAX_HISTOGRAM_BOUNDS).toBe(256);
    const now = Date.now();
    const decoded = json(histogram(now, ascending(100_000)));
    expect(decoded.rejected).toBe(1);
    expect(decoded.rejectedReasons.join()).toMatch(/more than 256 explicitBounds \(100000\)/);
    const store = open({ now: () => now });
    createIngestSink(store).metrics(decoded);
    expect(store.db.prepare('SELECT COUNT(*) FROM facts').pluck().get()).toBe(0);
  });

  it('takes a point with exactly the maximum of bounds', () => {
    const now = Date.now();
    const decoded = json(histogram(now, ascending(MAX_HISTOGRAM_BOUNDS)));
    expect(decoded.rejected).toBe(0);
    const store = open({ now: () => now });
    createIngestSink(store).metrics(decoded);
    // one row per bucket and tier
    expect(bucketRows(store) % (MAX_HISTOGRAM_BOUNDS + 1)).toBe(0);
    expect(bucketRows(store)).toBeGreaterThan(0);
  });

  it.each([
    ['not ascending', [0.1, 0.3, 0.2], /explicitBounds not strictly ascending/],
    ['repeated', [0.1, 0.1], /explicitBounds not strictly ascending/],
    ['infinite', [0.1, 'Infinity'], /explicitBounds not finite/],
    ['NaN', ['NaN', 0.1], /explicitBounds not finite/],
  ])('refuses bounds that are %s', (_, bounds, reason) => {
    const now = Date.now();
    const decoded = json(histogram(now, bounds));
    expect(decoded.rejected).toBe(1);
    expect(decoded.rejectedReasons.join()).toMatch(reason);
    const store = open({ now: () => now });
    createIngestSink(store).metrics(decoded);
    expect(bucketRows(store)).toBe(0);
  });
});

describe('breaker transitions', () => {
  const insert = (store: EmbeddedStore, ts: number, server: string, from: string, to: string) =>
    store.db
      .prepare(
        `INSERT INTO breaker_transitions (ts, service, instance, server, tool, from_state, to_state, reason)
         VALUES (?, 'agent', 'i-1', ?, '', ?, ?, 'observed')`,
      )
      .run(ts, server, from, to);
  const count = (store: EmbeddedStore) =>
    store.db.prepare('SELECT COUNT(*) FROM breaker_transitions').pluck().get() as number;

  it('keeps at most maxTransitions rows (MAX_STORED_TRANSITIONS), the newest', () => {
    const now = Date.now();
    const store = open({ now: () => now, maxTransitions: 5 });
    for (let i = 0; i < 12; i++) insert(store, now - 1000 + i, 'weather', 'closed', 'open');
    store.enforceRetention();
    expect(count(store)).toBe(5);
    expect(store.db.prepare('SELECT MIN(ts) FROM breaker_transitions').pluck().get()).toBe(now - 1000 + 7);
  });

  it('reads at most maxTimelineTransitions of a window (the newest), filtered in SQL', async () => {
    const now = Date.now();
    const store = open({ now: () => now });
    const from = now - 100_000;
    // 20 alternating transitions of weather, and many of another server the filter leaves out
    for (let i = 0; i < 20; i++)
      insert(store, from + 1000 * (i + 1), 'weather', i % 2 ? 'open' : 'closed', i % 2 ? 'closed' : 'open');
    for (let i = 0; i < 50; i++) insert(store, from + 500 + i, 'search', 'closed', 'open');
    const source = new EmbeddedSource(store, { staleMs: 600_000, maxTimelineTransitions: 4 });
    const rows = await source.breakerTimeline({ from, to: now, filters: { server: 'weather' } });
    expect(rows).toHaveLength(1);
    const segments = rows[0]!.segments;
    // before the 4 newest transitions (16..19), the state after transition 15 (closed); then open, closed...
    expect(segments.map((s) => s.state)).toEqual(['closed', 'open', 'closed', 'open', 'closed']);
    expect(segments[1]!.from).toBe(from + 17_000);
    expect(segments.at(-1)!.to).toBe(now);
    // unfiltered, both servers are there
    const all = await new EmbeddedSource(store, { staleMs: 600_000 }).breakerTimeline({
      from,
      to: now,
      filters: {},
    });
    expect(all.map((r) => r.server)).toEqual(['search', 'weather']);
    // no state before the first data (the first transition: this breaker was never seen otherwise)
    expect(all[1]!.segments).toHaveLength(20);
    expect(all[1]!.segments[0]).toMatchObject({ from: from + 1000, state: 'open' });
  });
});
