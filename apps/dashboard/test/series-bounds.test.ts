import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedSource } from '@/lib/data/embedded-source';
import { decodeMetrics } from '@/lib/otlp/decode';
import { EmbeddedStore, type EmbeddedStoreOptions } from '@/lib/store/embedded-store';
import { sumRequest } from './support/otlp-json';
import { tempDir } from './support/runtime';

/*
 * What a hostile exporter could make the store keep without bound: one cumulative series state per distinct
 * attribute set, one bucket row per histogram bound, one transition row per breaker change. Each is capped;
 * points beyond are refused with an OTLP partial-success reason.
 */

const CALLS = 'mcp.resilience.calls';
const DAY = 86_400_000;
const ok = { 'mcp.server': 'weather', outcome: 'success' };

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
    expect(store.metrics(point('a', 1))).toEqual({ rejected: 0 });
    expect(store.metrics(point('b', 1))).toEqual({ rejected: 0 });
    const refused = store.metrics(point('c', 1));
    expect(refused.rejected).toBe(1);
    expect(refused.message).toMatch(/too many cumulative series \(OTLP_MAX_CUMULATIVE_SERIES = 2\)/);
    expect(store.trackedSeries).toBe(2);
    // the series already tracked keep working
    now += 1000;
    expect(store.metrics(point('a', 5))).toEqual({ rejected: 0 });
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
    expect(store.metrics(point('a')).rejected).toBe(0);
    expect(store.metrics(point('b')).rejected).toBe(1);
    now += 3 * DAY;
    store.enforceRetention();
    expect(store.trackedSeries).toBe(0);
    expect(store.metrics(point('b')).rejected).toBe(0);
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
    const r = store.metrics(json(sumRequest(CALLS, points)));
    expect(r.rejected).toBe(7);
    expect(store.trackedSeries).toBe(3);
    expect(store.db.prepare('SELECT COUNT(*) FROM cumulative_state').pluck().get()).toBe(3);
  });
});
