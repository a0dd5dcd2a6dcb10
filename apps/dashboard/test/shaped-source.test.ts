import { describe, expect, it } from 'vitest';
import type { InstanceBreakerState } from '@/lib/data/breakers';
import { bucketElapsed } from '@/lib/data/bucket-elapsed';
import { bucketQuantile } from '@/lib/data/bucket-quantile';
import { compareNumbers } from '@/lib/data/compare-numbers';
import type { BucketPlan, BucketRow, CountRow, Dim, MetricName, Primitives } from '@/lib/data/primitives';
import { NOW_WINDOW_MS, ShapedSource } from '@/lib/data/shaped-source';
import { planBuckets } from '@/lib/data/time-buckets';
import type { BreakerTransition, TimeQuery } from '@/lib/data/types';

/*
 * The shaping module over an in-memory backend: raw events (metric, time, labels, value) answered by the same
 * primitive contract as the two real backends, so each rule of the shaping is checked on numbers we choose.
 */

interface Event {
  readonly metric: MetricName;
  readonly t: number;
  readonly labels: Partial<Record<Dim, string>>;
  readonly value: number;
  readonly count?: number;
}

const MIN = 60_000;
const NOW = 1_800_000_000_000;

function memory(
  events: Event[],
  o: { breakers?: InstanceBreakerState[]; transitions?: BreakerTransition[] } = {},
): Primitives {
  const inWindow = (e: Event, q: TimeQuery) =>
    e.t >= q.from &&
    e.t < q.to &&
    (q.filters.server === undefined || e.labels.server === q.filters.server) &&
    (q.filters.service === undefined || e.labels.service === q.filters.service);
  const group = (rows: Event[], by: readonly Dim[], k?: (e: Event) => number) => {
    const out = new Map<string, BucketRow>();
    for (const e of rows) {
      const labels: Partial<Record<Dim, string>> = {};
      for (const d of by) labels[d] = e.labels[d] ?? '';
      const kk = k ? k(e) : 0;
      const key = `${kk}|${by.map((d) => labels[d]).join('|')}`;
      const r = out.get(key) ?? { k: kk, labels, value: 0, count: 0 };
      out.set(key, { ...r, value: r.value + e.value, count: r.count + (e.count ?? 0) });
    }
    return [...out.values()];
  };
  return {
    kind: 'embedded',
    capabilities: { traces: false, push: false, instances: false },
    freshnessMs: 10_000,
    now: () => NOW,
    plan: (q, maxPoints) => planBuckets(q.from, q.to, 10_000, maxPoints),
    totals: async (metric, q, by): Promise<CountRow[]> =>
      group(
        events.filter((e) => e.metric === metric && inWindow(e, q)),
        by,
      ).map(({ k: _k, ...r }) => r),
    buckets: async (metric, q, plan: BucketPlan, by) =>
      group(
        events.filter(
          (e) =>
            e.metric === metric &&
            inWindow(e, { ...q, from: plan.origin, to: plan.origin + plan.count * plan.step }),
        ),
        by,
        (e) => Math.floor((e.t - plan.origin) / plan.step),
      ),
    latency: async () => [],
    instanceBreakers: async () => o.breakers ?? [],
    breakerWaiting: async () => [],
    stateChanges: async () => [],
    histogram: async () => [],
    transitions: async (q) => (o.transitions ?? []).filter((t) => t.ts >= q.from && t.ts < q.to),
    instances: async () => [],
    recentCalls: async () => [],
    dimensions: async () => ({ services: [], servers: [], tools: [], variants: [] }),
  };
}

const hour: TimeQuery = { from: NOW - 60 * MIN, to: NOW, filters: {} };
const calls = (t: number, n: number, outcome = 'success', server = 'weather'): Event => ({
  metric: 'calls',
  t,
  labels: { outcome, server, tool: 'get_forecast', service: 'agent' },
  value: n,
});

describe('ShapedSource', () => {
  it('divides rates by the time that has data, not by the whole range', async () => {
    // 2 minutes of data at the end of an hour: 2,700 calls → 1,350 a minute (not 45)
    const events = Array.from({ length: 12 }, (_, i) => calls(NOW - 2 * MIN + i * 10_000, 225));
    const h = await new ShapedSource(memory(events)).headline(hour);
    expect(h.calls.total).toBe(2700);
    expect(h.dataSeconds).toBe(120);
    expect(h.callsPerMinute).toBe(1350);
    expect(h.dataFrom).toBe(NOW - 2 * MIN);
  });

  it.each([
    ['24h', 24 * 60 * MIN],
    ['7d', 7 * 24 * 60 * MIN],
  ])(
    'divides rates by the time with data on the %s range, found finer than the chart step',
    async (_, span) => {
      const q: TimeQuery = { from: NOW - span, to: NOW, filters: {} };
      // 2 minutes of data at the end: 1,350 a minute, whatever the chart's step (10 min on 24h, 1 h on 7d)
      const atEnd = Array.from({ length: 12 }, (_, i) => calls(NOW - 2 * MIN + i * 10_000, 225));
      const h = await new ShapedSource(memory(atEnd)).headline(q);
      expect(h.calls.total).toBe(2700);
      expect(h.dataFrom).toBe(NOW - 2 * MIN);
      expect(h.dataSeconds).toBe(120);
      expect(h.callsPerMinute).toBe(1350);
      // data that began mid-range, off the chart's grid: the rate runs from its first 10 s to the end
      const start = NOW - span / 2 - 7 * MIN - 30_000;
      const mid = [calls(start, 300), calls(start + 5 * MIN, 300)];
      const m = await new ShapedSource(memory(mid)).headline(q);
      expect(m.dataFrom).toBe(start);
      expect(m.dataSeconds).toBe((NOW - start) / 1000);
      expect(m.callsPerMinute).toBeCloseTo(600 / ((NOW - start) / MIN), 9);
    },
  );

  it('counts the idle time after traffic stopped ("now" is not the rate it had while it ran)', async () => {
    // 1 minute of traffic (600 calls) that stopped 4 minutes ago: 120 a minute over the last 5 minutes
    const events = Array.from({ length: 6 }, (_, i) => calls(NOW - 5 * MIN + i * 10_000, 100));
    const breaker: InstanceBreakerState = {
      service: 'agent',
      instance: 'a',
      server: 'weather',
      tool: '',
      state: 'closed',
      since: NOW - 60 * MIN,
      stale: false,
    };
    const src = new ShapedSource(memory(events, { breakers: [breaker] }));
    const h = await src.headline(hour);
    expect(h.now.calls.total).toBe(600);
    expect(h.now.dataSeconds).toBe(300);
    expect(h.now.callsPerMinute).toBe(120);
    expect(h.callsPerMinute).toBe(120);
    const [tile] = await src.breakerTiles(hour);
    expect(tile!.callsPerSecond).toBe(2);
  });

  it("counts a breaker tile's calls of the services that report the breaker only (no naive agent)", async () => {
    const breaker = (service: string, instance: string): InstanceBreakerState => ({
      service,
      instance,
      server: 'weather',
      tool: '',
      state: 'open',
      since: NOW - 10 * MIN,
      stale: false,
    });
    const of = (service: string, t: number, n: number, outcome: string): Event => ({
      ...calls(t, n, outcome),
      labels: { outcome, server: 'weather', tool: 'get_forecast', service },
    });
    const resilient = [
      of('resilient', NOW - 30 * MIN, 90, 'success'),
      of('resilient', NOW - 30 * MIN, 10, 'failure'),
      of('resilient', NOW - 2 * MIN, 40, 'success'),
      of('resilient', NOW - 2 * MIN, 20, 'failure'),
    ];
    // a naive agent (no breaker) hammering the same server: more calls, almost all failing, earlier in "now"
    const naive = [
      of('naive', NOW - 50 * MIN, 500, 'failure'),
      of('naive', NOW - 4 * MIN, 300, 'failure'),
      of('naive', NOW - 4 * MIN, 5, 'success'),
    ];
    const breakers = [breaker('resilient', 'a'), breaker('resilient', 'b')];
    const [mixed] = await new ShapedSource(memory([...resilient, ...naive], { breakers })).breakerTiles(hour);
    const [alone] = await new ShapedSource(memory(resilient, { breakers })).breakerTiles(hour);
    expect(alone!.calls).toBe(160);
    expect(alone!.errorRate).toBeCloseTo(20 / 60, 12);
    expect(mixed!.calls).toBe(alone!.calls);
    expect(mixed!.errorRate).toBe(alone!.errorRate);
    expect(mixed!.errorRateRange).toBe(alone!.errorRateRange);
    expect(mixed!.callsPerSecond).toBe(alone!.callsPerSecond);
    expect(mixed!.sparkline).toEqual(alone!.sparkline);
  });

  it('gives "now" (the last 5 minutes) beside the range', async () => {
    const events = [
      calls(NOW - 50 * MIN, 1000, 'failure'),
      calls(NOW - 3 * MIN, 90),
      calls(NOW - 3 * MIN, 10, 'failure'),
      { metric: 'retries' as const, t: NOW - 50 * MIN, labels: { outcome: 'failure' }, value: 40 },
      { metric: 'retries' as const, t: NOW - 2 * MIN, labels: { outcome: 'success' }, value: 30 },
    ];
    const h = await new ShapedSource(memory(events)).headline(hour);
    expect(h.now.from).toBe(NOW - NOW_WINDOW_MS);
    expect(h.now.calls).toEqual({ total: 100, success: 90, failure: 10, rejected: 0 });
    expect(h.calls.total).toBe(1100);
    expect(h.now.retries).toEqual({ total: 30, successful: 30, efficiency: 1 });
    expect(h.retries.efficiency).toBeCloseTo(30 / 70, 12);
  });

  it('marks the buckets still filling instead of leaving them to read as a drop', async () => {
    const q: TimeQuery = { from: NOW - 10 * MIN, to: NOW, filters: {} };
    const s = await new ShapedSource(memory([calls(NOW - 5 * MIN, 10)])).callSeries(q);
    expect(s.step).toBe(10_000);
    // buckets ending after now - 10 s (the export lag) are partial: the last one (and no complete one)
    expect(s.partialFrom).toBe(NOW - 10_000);
    expect(s.points.filter((p) => p.t >= s.partialFrom!)).toHaveLength(1);
    // and where its data can end (charts take a partial bucket's rate over its elapsed part, at least one
    // export interval: the 10 s bucket that began at NOW - 10 s)
    expect(s.end).toBe(NOW);
    const justBegun = await new ShapedSource(memory([])).callSeries({ ...q, to: NOW - 9_000 });
    expect(justBegun.end).toBe(NOW - 10_000 + 10_000);
    // a window in the past has no partial bucket
    const past = await new ShapedSource(memory([])).callSeries({ ...q, from: q.from - MIN, to: q.to - MIN });
    expect(past.partialFrom).toBeUndefined();
  });

  it("takes a partial bucket's rate up to the newest data received, not up to now", async () => {
    // 30 s buckets over an hour: the last began 30 s ago; its data arrived until 20 s ago (an export is due)
    const q: TimeQuery = { from: NOW - 60 * MIN, to: NOW, filters: {} };
    const p = memory([calls(NOW - 24_000, 20)]);
    const s = await new ShapedSource({ ...p, lastDataAt: async () => NOW - 20_000 }).callSeries(q);
    expect(s.step).toBe(30_000);
    const last = s.points.at(-1)!;
    expect(last.t).toBe(NOW - 30_000);
    // 20 calls over the 10 s with data: 120/min (up to now, 40/min: a drop that is not there)
    expect(s.end).toBe(NOW - 20_000);
    expect((last.success / (s.end! - last.t)) * 60_000).toBe(120);
    // data not yet in the bucket: at least half the export lag into it (one export would read as a spike)
    const early = await new ShapedSource({ ...p, lastDataAt: async () => NOW - 40_000 }).callSeries(q);
    expect(early.end).toBe(NOW - 25_000);
  });

  it("takes the newest bucket's rate over the time its exports cover: no spike, no drop, any interval", async () => {
    // Steady agents, 120 calls/min each, exporting every 10, 30 or 60 s at different phases: each export is
    // dated at its time and carries its whole interval. Whatever "now" is, the newest bucket's rate (as the
    // charts draw it, `bucketElapsed`) is the fleet's steady rate, or a gap while no export is in yet.
    const PER_MS = 120 / MIN;
    const fleets = [
      [{ every: 10_000, phase: 0 }],
      [{ every: 30_000, phase: 0 }],
      [{ every: 60_000, phase: 0 }],
      [
        { every: 30_000, phase: 0 },
        { every: 30_000, phase: 7_000 },
        { every: 30_000, phase: 19_000 },
      ],
      [
        { every: 10_000, phase: 3_000 },
        { every: 30_000, phase: 11_000 },
        { every: 60_000, phase: 41_000 },
      ],
    ];
    let drawn = 0;
    for (const fleet of fleets) {
      const at = (a: (typeof fleet)[number], now: number) =>
        Array.from(
          { length: Math.floor((now - NOW + 2 * 60 * MIN - a.phase) / a.every) + 1 },
          (_, k) => NOW - 2 * 60 * MIN + a.phase + k * a.every,
        );
      for (const span of [15 * MIN, 60 * MIN, 6 * 60 * MIN]) {
        for (let now = NOW; now < NOW + 2 * MIN; now += 1_700) {
          const exports = fleet.map((a) => ({ a, times: at(a, now) }));
          const events = exports.flatMap(({ a, times }) => times.map((t) => calls(t, PER_MS * a.every)));
          const p: Primitives = {
            ...memory(events),
            now: () => now,
            lastDataAt: async () => Math.max(...exports.map((e) => e.times.at(-1)!)),
            instanceExports: async () =>
              exports.map(({ a, times }) => ({
                service: 'agent',
                exportAt: times.at(-1)!,
                exportMs: a.every,
              })),
          };
          const s = await new ShapedSource(p).callSeries({ from: now - span, to: now, filters: {} });
          const last = s.points.at(-1)!;
          const elapsed = bucketElapsed(s, last.t, last.t);
          const where = `every ${fleet.map((a) => a.every / 1000).join('/')} s, ${span / MIN} min, now +${now - NOW} ms`;
          if (last.success === 0) continue;
          drawn++;
          // (end is an epoch time: exact to about 1e-8 of the rate)
          expect(Math.abs((last.success / elapsed) * MIN - 120 * fleet.length), where).toBeLessThan(1e-3);
        }
      }
    }
    expect(drawn).toBeGreaterThan(800);
  });

  it('widens the step to the longest steady export interval: complete buckets read the steady rate', async () => {
    // Issue #22: 30 s exports in 10 s buckets read 0, 0, then 3x. Agents at 120 calls/min each, at phases.
    const PER_MS = 120 / MIN;
    const fleets = [
      { every: [30_000], step: 30_000 },
      { every: [60_000], step: 60_000 },
      { every: [30_000, 30_000, 30_000], step: 30_000 },
      { every: [10_000, 30_000, 60_000], step: 60_000 },
    ];
    for (const fleet of fleets) {
      const agents = fleet.every.map((every, i) => ({ every, phase: 3_000 + i * 7_000 }));
      for (let now = NOW; now < NOW + 2 * MIN; now += 3_100) {
        const times = agents.map((a) =>
          Array.from(
            { length: Math.floor((now - NOW + 60 * MIN - a.phase) / a.every) + 1 },
            (_, k) => NOW - 60 * MIN + a.phase + k * a.every,
          ),
        );
        const events = agents.flatMap((a, i) => times[i]!.map((t) => calls(t, PER_MS * a.every)));
        const p: Primitives = {
          ...memory(events),
          now: () => now,
          plan: (q, maxPoints, dataStepMs) => planBuckets(q.from, q.to, 10_000, maxPoints, dataStepMs),
          instanceExports: async () =>
            agents.map((a, i) => ({
              service: 'agent',
              exportAt: times[i]!.at(-1)!,
              exportMs: a.every,
              steady: true,
            })),
        };
        const s = await new ShapedSource(p).callSeries({ from: now - 15 * MIN, to: now, filters: {} });
        const where = `every ${fleet.every.join('/')} ms, now +${now - NOW} ms`;
        expect(s.step, where).toBe(fleet.step);
        expect(s.exportMs, where).toBe(Math.max(...fleet.every));
        const complete = s.points.filter((x) => x.t < s.partialFrom!);
        expect(complete.length, where).toBeGreaterThanOrEqual(13);
        for (const x of complete) {
          expect(Math.abs((x.success / s.step) * MIN - 120 * agents.length), where).toBeLessThan(1e-9);
        }
      }
    }
    // an interval seen once (two flushes) is no cadence: the range sets the step
    const once: Primitives = {
      ...memory([]),
      plan: (q, maxPoints, dataStepMs) => planBuckets(q.from, q.to, 10_000, maxPoints, dataStepMs),
      instanceExports: async () => [{ service: 'agent', exportAt: NOW - 1_000, exportMs: 30_000 }],
    };
    const s = await new ShapedSource(once).callSeries({ from: NOW - 15 * MIN, to: NOW, filters: {} });
    expect(s.step).toBe(10_000);
    expect(s.exportMs).toBeUndefined();
  });

  it('builds the class and the type tables from the same rows', async () => {
    const err = (type: string, cls: string, n: number): Event => ({
      metric: 'errors',
      t: NOW - MIN,
      labels: { errorType: type, errorClass: cls, service: 'naive' },
      value: n,
    });
    // a naive agent calls everything retryable, invalid_params included
    const src = new ShapedSource(
      memory([err('invalid_params', 'retryable', 6), err('unavailable', 'retryable', 4)]),
    );
    const matrix = await src.errorMatrix(hour);
    expect(matrix).toEqual([
      { type: 'invalid_params', errorClass: 'retryable', count: 6 },
      { type: 'unavailable', errorClass: 'retryable', count: 4 },
    ]);
    const byClass = await src.errorBreakdown(hour, 'class');
    expect(byClass.find((r) => r.key === 'retryable')!.count).toBe(matrix.reduce((s, r) => s + r.count, 0));
  });

  it("dates a tile's state and shows the transition that began it (in state = since that transition)", async () => {
    const t1 = NOW - 157_000;
    const t2 = NOW - 28_000;
    const breaker = (instance: string, since: number): InstanceBreakerState => ({
      service: 'agent',
      instance,
      server: 'down',
      tool: '',
      state: 'open',
      since,
      stale: false,
    });
    const transition = (instance: string, ts: number, from: string): BreakerTransition => ({
      ts,
      service: 'agent',
      instance,
      server: 'down',
      tool: null,
      from,
      to: 'open',
      reason: 'consecutive_failures',
    });
    const src = new ShapedSource(
      memory([calls(NOW - MIN, 5, 'failure', 'down')], {
        breakers: [breaker('a', t1), breaker('b', t2)],
        transitions: [transition('a', t1, 'closed'), transition('b', t2, 'half_open')],
      }),
    );
    const [tile] = await src.breakerTiles(hour);
    expect(tile!.instances).toEqual({ closed: 0, open: 2, half_open: 0 });
    expect(tile!.since).toBe(t1);
    expect(tile!.lastTransition).toEqual({
      at: t1,
      from: 'closed',
      to: 'open',
      reason: 'consecutive_failures',
    });
    expect(tile!.errorRate).toBe(1);
  });

  it('compares groups on one plan, busiest first', async () => {
    const events = [calls(NOW - MIN, 5, 'success', 'a'), calls(NOW - 2 * MIN, 50, 'failure', 'b')];
    const groups = await new ShapedSource(memory(events)).compare(hour, 'server');
    expect(groups.map((g) => [g.key, g.callsTotal, g.failures])).toEqual([
      ['b', 50, 50],
      ['a', 5, 0],
    ]);
    expect(groups[0]!.calls.step).toBe(groups[1]!.calls.step);
    expect(groups[0]!.calls.points.reduce((s, p) => s + p.failure, 0)).toBe(50);
  });

  it('compares what each group got done and what failing cost: successes, requests, failed time', async () => {
    const at = (t: number, metric: MetricName, labels: Event['labels'], value: number, count = 0): Event => ({
      metric,
      t,
      labels,
      value,
      count,
    });
    // naive: 10 successes, 2 failures that each took 30 s, 20 retries (10 of them failed); data from 10 min ago
    // resilient: 10 successes, 1 failure of 2 s, 3 rejected at once, 2 retries; data from 5 min ago
    const events = [
      at(NOW - 10 * MIN, 'calls', { service: 'naive', outcome: 'success' }, 10),
      at(NOW - 9 * MIN, 'calls', { service: 'naive', outcome: 'failure' }, 2),
      at(NOW - 9 * MIN, 'retries', { service: 'naive', outcome: 'failure' }, 10),
      at(NOW - 9 * MIN, 'retries', { service: 'naive', outcome: 'success' }, 10),
      at(NOW - 9 * MIN, 'callDuration', { service: 'naive', outcome: 'success' }, 2, 10),
      at(NOW - 9 * MIN, 'callDuration', { service: 'naive', outcome: 'failure' }, 60, 2),
      at(NOW - 5 * MIN, 'calls', { service: 'resilient', outcome: 'success' }, 10),
      at(NOW - 4 * MIN, 'calls', { service: 'resilient', outcome: 'failure' }, 1),
      at(NOW - 4 * MIN, 'calls', { service: 'resilient', outcome: 'rejected' }, 3),
      at(NOW - 4 * MIN, 'retries', { service: 'resilient', outcome: 'success' }, 2),
      at(NOW - 4 * MIN, 'callDuration', { service: 'resilient', outcome: 'failure' }, 2, 1),
      at(NOW - 4 * MIN, 'callDuration', { service: 'resilient', outcome: 'rejected' }, 0.003, 3),
    ];
    const groups = await new ShapedSource(memory(events)).compare(hour, 'service');
    const naive = groups.find((g) => g.key === 'naive')!;
    const resilient = groups.find((g) => g.key === 'resilient')!;
    expect(naive).toMatchObject({ successes: 10, failures: 2, rejected: 0, requests: 12 + 20 });
    expect(naive.failedSeconds).toBeCloseTo(60, 9);
    expect(naive.dataSeconds).toBe(600);
    expect(resilient).toMatchObject({ successes: 10, failures: 1, rejected: 3, requests: 14 - 3 + 2 });
    expect(resilient.failedSeconds).toBeCloseTo(2.003, 9);
    expect(resilient.dataSeconds).toBe(300);
    const n = compareNumbers(naive);
    expect(n).toMatchObject({ failed: 2, successesPerMinute: 1, requestsPerSuccess: 3.2 });
    expect(n.failedShare).toBeCloseTo(2 / 12, 12);
    expect(n.secondsPerFailedCall).toBeCloseTo(30, 9);
    const r = compareNumbers(resilient);
    expect(r).toMatchObject({ failed: 4, successesPerMinute: 2, requestsPerSuccess: 1.3 });
    expect(r.failedShare).toBeCloseTo(4 / 14, 12);
  });

  it('compare numbers without data: no rate, no ratio, no cost per failed call', () => {
    const empty = {
      key: 'x',
      efficiency: { step: 1, points: [] },
      calls: { step: 1, points: [] },
      retries: { total: 0, successful: 0 },
      callsTotal: 0,
      failures: 0,
      rejected: 0,
      successes: 0,
      requests: 0,
      failedSeconds: 0,
      dataSeconds: 0,
    };
    expect(compareNumbers(empty)).toEqual({
      failed: 0,
      failedShare: null,
      successesPerMinute: null,
      requestsPerSuccess: null,
      failedSeconds: 0,
      secondsPerFailedCall: null,
    });
  });
});

describe('bucketQuantile (histogram_quantile semantics)', () => {
  const bounds = [0.1, 0.5, 1, 5];
  it('interpolates inside the bucket holding the rank, from 0 for the first bucket', () => {
    const counts = [50, 40, 0, 10, 0]; // per bucket, the last one +Inf
    expect(bucketQuantile(0.5, bounds, counts)).toBeCloseTo(0.1, 12);
    expect(bucketQuantile(0.25, bounds, counts)).toBeCloseTo(0.05, 12);
    expect(bucketQuantile(0.95, bounds, counts)).toBeCloseTo(3, 12);
    expect(bucketQuantile(0.99, bounds, counts)).toBeCloseTo(4.6, 12);
  });
  it('answers the highest finite bound in the +Inf bucket, null without observations', () => {
    expect(bucketQuantile(0.99, bounds, [0, 0, 0, 0, 3])).toBe(5);
    expect(bucketQuantile(0.5, bounds, [0, 0, 0, 0, 0])).toBeNull();
  });
});
