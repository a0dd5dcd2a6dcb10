import { afterEach, describe, expect, it } from 'vitest';
import { GONE_AFTER_MS } from '@/lib/data/breakers';
import { EmbeddedSource } from '@/lib/data/embedded-source';
import type { Primitives } from '@/lib/data/primitives';
import { ShapedSource } from '@/lib/data/shaped-source';
import type { Filters, TimeQuery } from '@/lib/data/types';
import { createIngestSink } from '@/lib/ingest/ingest-sink';
import { decodeMetrics } from '@/lib/otlp/decode';
import { EmbeddedStore } from '@/lib/store/embedded-store';
import { breakerGaugeRequest, type GaugeBreaker } from './support/breaker-gauges';
import { tempDir } from './support/runtime';

/*
 * The Breakers page reads one page of breakers: chosen in SQL (worst first, LIMIT/OFFSET, counts by state),
 * then every query of the page is restricted to the breakers shown, so its work does not grow with the
 * breakers stored.
 */

const open: EmbeddedStore[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

/** A store of its own (closed after the test) whose clock is `now()`. */
function openStore(now: () => number, caps = { maxCalls: 100, maxAttempts: 100 }) {
  const store = new EmbeddedStore({ dataDir: tempDir(), retentionMs: 7 * 86_400_000, ...caps, now });
  open.push(store);
  return store;
}

/** One export of breaker state gauges, dated `at`, from `instance`. */
function report(store: EmbeddedStore, breakers: readonly GaugeBreaker[], at: number, instance = 'fleet-1') {
  const body = Buffer.from(JSON.stringify(breakerGaugeRequest(breakers, at, { instance })));
  createIngestSink(store).metrics(decodeMetrics(body, 'json'));
}

function storeWith(breakers: readonly GaugeBreaker[], now: number, instance = 'fleet-1') {
  const store = openStore(() => now, { maxCalls: 1000, maxAttempts: 5000 });
  report(store, breakers, now - 1000, instance);
  return store;
}

const WEATHER_CLOSED: GaugeBreaker[] = [{ server: 'weather', tool: '', state: 'closed' }];

const fleet = (n: number): GaugeBreaker[] =>
  Array.from({ length: n }, (_, i) => ({
    server: `srv-${String(i % 10).padStart(2, '0')}`,
    tool: `tool-${String(i).padStart(4, '0')}`,
    state: i % 97 === 0 ? 'open' : i % 89 === 0 ? 'half_open' : 'closed',
  }));

describe('Breakers page (breakerPage)', () => {
  const now = Date.UTC(2026, 11, 1, 12);
  const q: TimeQuery = { from: now - 3_600_000, to: now, filters: {} };

  it('shows one page worst first, counts every state, and says how many more', async () => {
    const breakers = fleet(900); // under MAX_LABEL_VALUES tools
    const source = new EmbeddedSource(storeWith(breakers, now), { staleMs: 600_000 });
    const page = await source.breakerPage(q, { offset: 0, limit: 48 });
    const open = breakers.filter((b) => b.state === 'open').length;
    const half = breakers.filter((b) => b.state === 'half_open').length;
    expect(page.counts).toEqual({ open, half_open: half, closed: 900 - open - half, stale: 0 });
    expect(page.total).toBe(900);
    expect(page.tiles).toHaveLength(48);
    // every open breaker (10) first, then the half-open ones
    expect(page.tiles.slice(0, open).every((t) => t.state === 'open')).toBe(true);
    expect(page.tiles.slice(open, open + half).every((t) => t.state === 'half_open')).toBe(true);
    expect(page.tiles.slice(open + half).every((t) => t.state === 'closed')).toBe(true);
    // the timeline holds the breakers shown, not every breaker
    expect(page.timeline).toHaveLength(48);
    const shown = new Set(page.tiles.map((t) => `${t.server}/${t.tool}`));
    expect(page.timeline.every((r) => shown.has(`${r.server}/${r.tool}`))).toBe(true);

    const last = await source.breakerPage(q, { offset: 864, limit: 48 });
    expect(last.tiles).toHaveLength(36);
    expect(last.tiles.every((t) => t.state === 'closed')).toBe(true);
  });

  it('lists a breaker stored after the counts were taken on the first page at once (the summary)', async () => {
    const store = storeWith([], now);
    const source = new EmbeddedSource(store, { staleMs: 600_000 });
    expect(await source.breakers(q)).toEqual([]); // the counts by state (none) are taken and kept
    const body = Buffer.from(
      JSON.stringify(breakerGaugeRequest([{ server: 'down', tool: '', state: 'open' }], now - 500)),
    );
    createIngestSink(store).metrics(decodeMetrics(body, 'json'));
    expect((await source.breakers(q)).map((b) => `${b.server}:${b.state}`)).toEqual(['down:open']);
  });

  it('filters by text and state; the counts follow the text filter', async () => {
    const source = new EmbeddedSource(storeWith(fleet(500), now), { staleMs: 600_000 });
    const byText = await source.breakerPage(q, { offset: 0, limit: 48, match: 'TOOL-001' });
    expect(byText.total).toBe(10); // tool-0010 … tool-0019
    expect(byText.tiles.map((t) => t.tool).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `tool-00${10 + i}`),
    );
    const opens = await source.breakerPage(q, { offset: 0, limit: 48, state: 'open' });
    expect(opens.total).toBe(opens.counts.open);
    expect(opens.tiles.map((t) => t.state)).toEqual(Array(opens.counts.open).fill('open'));
    const none = await source.breakerPage(q, { offset: 0, limit: 48, match: 'nothing-like-it' });
    expect(none).toMatchObject({ total: 0, tiles: [], timeline: [] });
  });

  it('counts a breaker whose instances all stopped reporting as stale, after the reported ones', async () => {
    const source = new EmbeddedSource(storeWith(fleet(30), now - 3_600_000), { staleMs: 600_000 });
    const store = open[0]!;
    const body = Buffer.from(
      JSON.stringify(breakerGaugeRequest([{ server: 'zz', tool: '', state: 'closed' }], now - 1000)),
    );
    (store as unknown as { now: () => number }).now = () => now;
    createIngestSink(store).metrics(decodeMetrics(body, 'json'));
    const page = await source.breakerPage(q, { offset: 0, limit: 5 });
    expect(page.counts.stale).toBe(30);
    expect(page.tiles[0]).toMatchObject({ server: 'zz', stale: false });
    expect(page.tiles.slice(1).every((t) => t.stale)).toBe(true);
  });

  it('reads only the breakers of the page: every primitive is asked with those breakers', async () => {
    const breakers = fleet(300);
    const inner = new EmbeddedSource(storeWith(breakers, now), { staleMs: 600_000 });
    const p = (inner as unknown as { p: Primitives }).p;
    const seen: Array<{ what: string; filters: Filters }> = [];
    const spy: Primitives = new Proxy(p, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          const a = args.find(
            (x) => typeof x === 'object' && x !== null && ('filters' in x || 'server' in x),
          );
          const filters = (a && 'filters' in (a as object) ? (a as TimeQuery).filters : a) as Filters;
          if (prop !== 'breakerPage' && prop !== 'plan' && prop !== 'now' && filters)
            seen.push({ what: String(prop), filters });
          return v.apply(target, args);
        };
      },
    });
    const page = await new ShapedSource(spy).breakerPage(q, { offset: 0, limit: 10 });
    expect(page.tiles).toHaveLength(10);
    expect(seen.length).toBeGreaterThan(5);
    for (const s of seen)
      expect({ what: s.what, n: s.filters.breakers?.length }).toEqual({ what: s.what, n: 10 });
  });

  it('pages a backend without breakerPage from its aggregated states (the same order)', async () => {
    const breakers = fleet(200);
    const inner = new EmbeddedSource(storeWith(breakers, now), { staleMs: 600_000 });
    const p = (inner as unknown as { p: Primitives }).p;
    const without: Primitives = Object.assign(Object.create(Object.getPrototypeOf(p)), p, {
      breakerPage: undefined,
    });
    const [a, b] = await Promise.all([
      inner.breakerPage(q, { offset: 48, limit: 48 }),
      new ShapedSource(without).breakerPage(q, { offset: 48, limit: 48 }),
    ]);
    expect(b.counts).toEqual(a.counts);
    expect(b.tiles.map((t) => `${t.server}/${t.tool}`)).toEqual(a.tiles.map((t) => `${t.server}/${t.tool}`));
  });
});

describe('breaker timeline: only where there is data', () => {
  it('paints a backfilled breaker from its data, not from when the data was received', async () => {
    const now = Date.UTC(2026, 11, 1, 12);
    const store = openStore(() => now);
    // an hour of reports sent at once (an exporter catching up, the demo's seed): closed all along
    for (const ago of [40, 30, 20, 10, 0]) report(store, WEATHER_CLOSED, now - ago * 60_000 - 1000);
    const source = new EmbeddedSource(store, { staleMs: 3_600_000 });
    const [row] = await source.breakerTimeline({ from: now - 3_600_000, to: now, filters: {} });
    expect(row?.segments).toEqual([{ from: now - 40 * 60_000 - 1000, to: now, state: 'closed' }]);
  });

  it('paints no state before the breaker was first seen, nor after its last report once it is gone', async () => {
    let now = Date.UTC(2026, 11, 1, 12);
    const store = openStore(() => now);
    const firstSeen = now; // received now, its first report's data 1 s older
    const reportNow = () => report(store, WEATHER_CLOSED, now - 1000);
    reportNow();
    now += 2 * 60_000;
    reportNow();
    const lastReport = now;
    now += 10 * 60_000;
    const source = new EmbeddedSource(store, { staleMs: 3_600_000 });
    const window = () => ({ from: now - 3_600_000, to: now, filters: {} });
    // its process exited after the second report: the band stops there, "No data (gone)" after
    const [gone] = await source.breakerTimeline(window());
    expect(gone?.segments).toEqual([{ from: firstSeen - 1000, to: lastReport, state: 'closed' }]);
    expect(gone?.goneFrom).toBe(lastReport);
    const [paged] = (await source.breakerPage(window(), { offset: 0, limit: 48 })).timeline;
    expect(paged?.goneFrom).toBe(lastReport);
    // reporting again: live, the band runs to now
    reportNow();
    const [live] = await source.breakerTimeline(window());
    expect(live?.segments).toEqual([{ from: firstSeen - 1000, to: now, state: 'closed' }]);
    expect(live?.goneFrom).toBeUndefined();
  });
});

describe('instances of a breaker tile', () => {
  it('counts live instances; those not seen for over GONE_AFTER_MS are counted apart as gone', async () => {
    let now = Date.UTC(2026, 11, 1, 12);
    const store = openStore(() => now);
    const reportAs = (instance: string, state: GaugeBreaker['state']) =>
      report(store, [{ server: 'weather', tool: '', state }], now - 500, instance);
    // 18 agents ran and exited 5 minutes ago (within the 10-minute stale time), 3 report now
    for (let i = 0; i < 18; i++) reportAs(`old-${i}`, 'open');
    now += 5 * 60_000;
    for (let i = 0; i < 3; i++) reportAs(`new-${i}`, 'closed');
    const source = new EmbeddedSource(store, { staleMs: 600_000 });
    const [tile] = await source.breakerTiles({ from: now - 3_600_000, to: now, filters: {} });
    expect(tile).toMatchObject({
      state: 'closed',
      instances: { closed: 3, open: 0, half_open: 0 },
      gone: 18,
    });
    expect(GONE_AFTER_MS).toBeLessThan(5 * 60_000);
    const [summary] = await source.breakers({ filters: {} });
    expect(summary?.state).toBe('closed');
  });
});
