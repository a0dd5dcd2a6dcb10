import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { AlertStore } from '@/lib/alerts/alert-store';
import { bucketElapsed } from '@/lib/data/bucket-elapsed';
import { EmbeddedSource } from '@/lib/data/embedded-source';
import type { TimeQuery } from '@/lib/data/types';
import { createIngestSink } from '@/lib/ingest/ingest-sink';
import { decodeMetrics, decodeTraces } from '@/lib/otlp/decode';
import { EmbeddedStore } from '@/lib/store/embedded-store';
import { MIGRATIONS } from '@/lib/store/schema';
import { createCapture, serialize } from './support/otel';
import { sumRequest } from './support/otlp-json';
import { tempDir } from './support/runtime';
import { type GroundTruth, type ScriptedCall, standardScript } from './support/workload';

const open: EmbeddedStore[] = [];
function openStore(dir = tempDir(), now?: () => number) {
  const store = new EmbeddedStore({
    dataDir: dir,
    retentionMs: 7 * 86_400_000,
    maxCalls: 1000,
    maxAttempts: 5000,
    now,
  });
  open.push(store);
  return { store, source: new EmbeddedSource(store, { staleMs: 600_000 }), dir };
}
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

async function ingest(store: EmbeddedStore, capture: ReturnType<typeof createCapture>) {
  createIngestSink(store).metrics(decodeMetrics(serialize.metricsProto(await capture.metrics()), 'protobuf'));
  const spans = capture.spans();
  if (spans.length > 0)
    createIngestSink(store).traces(decodeTraces(serialize.tracesProto(spans), 'protobuf'));
  capture.resetSpans();
}

/** `mcp.resilience.calls` points (successes on weather) of one service, as OTLP/JSON through the real ingest. */
function ingestCalls(
  store: EmbeddedStore,
  points: ReadonlyArray<{ timeMs: number; startMs: number; asInt: number }>,
  options: { service: string; temporality?: 1 | 2 },
) {
  const attributes = { 'mcp.resilience.server': 'weather', 'mcp.resilience.outcome': 'success' };
  const body = sumRequest(
    'mcp.resilience.calls',
    points.map((p) => ({ ...p, attributes })),
    options,
  );
  return createIngestSink(store).metrics(
    decodeMetrics(new TextEncoder().encode(JSON.stringify(body)), 'json'),
  );
}

/**
 * Agents of one service each, counting 120 calls/min from `at` (4 s apart) and exporting their cumulative count
 * every 10, 30 or 60 s.
 */
function steadyAgents(start: number) {
  return [10_000, 30_000, 60_000].map((every, i) => ({
    service: `every-${every / 1000}s`,
    every,
    at: start + 1_000 + i * 4_000,
  }));
}

/** The cumulative count of a series of 120 calls/min started at `at`, at `timeMs`. */
const steadyCount = (at: number, timeMs: number) => Math.round(((timeMs - at) * 120) / 60_000);

/** Whether `agent` exports at `t` (a whole second after its start). */
const exportsAt = (agent: { at: number; every: number }, t: number) => (t - agent.at) % agent.every === 0;

const all = (): TimeQuery => ({ from: Date.now() - 3_600_000, to: Date.now() + 60_000, filters: {} });

function add(a: GroundTruth, b: GroundTruth) {
  return {
    total: a.calls.total + b.calls.total,
    success: a.calls.success + b.calls.success,
    failure: a.calls.failure + b.calls.failure,
    rejected: a.calls.rejected + b.calls.rejected,
    retries: a.retries.total + b.retries.total,
    successful: a.retries.successful + b.retries.successful,
  };
}

describe('EmbeddedStore + EmbeddedSource', () => {
  it('adds up several instances and turns repeated cumulative exports into deltas', async () => {
    const { store, source } = openStore();
    const a = createCapture({ 'service.name': 'agent', 'service.instance.id': 'a' });
    const b = createCapture({ 'service.name': 'agent', 'service.instance.id': 'b' });
    await a.run(standardScript());
    await b.run([...standardScript(), ...standardScript('search')]);
    await ingest(store, a);
    await ingest(store, b);
    await ingest(store, a); // the same cumulative values again: nothing new
    await a.run(standardScript());
    await ingest(store, a);
    const s = await source.summary(all());
    const t = add(a.truth, b.truth);
    expect(s.calls).toEqual({ total: t.total, success: t.success, failure: t.failure, rejected: t.rejected });
    expect(s.retries.total).toBe(t.retries);
    expect(s.retries.successful).toBe(t.successful);
    expect(s.retries.efficiency).toBeCloseTo(t.successful / t.retries, 12);
    expect(s.errors.byClass.retryable).toBe(
      a.truth.errorsByClass.retryable + b.truth.errorsByClass.retryable,
    );
    expect(s.errors.byClass.non_retryable).toBe(
      a.truth.errorsByClass.non_retryable + b.truth.errorsByClass.non_retryable,
    );
    expect(s.errors.byType.unavailable).toBe(
      (a.truth.errorsByType.unavailable ?? 0) + (b.truth.errorsByType.unavailable ?? 0),
    );
    expect(s.wastedRetries).toBe(a.truth.wastedRetries + b.truth.wastedRetries);
    expect(s.wastedRetryTimeSeconds).toBeCloseTo((a.truth.wastedTimeMs + b.truth.wastedTimeMs) / 1000, 9);
    const durations = [...a.truth.nonRetryableDurationsMs, ...b.truth.nonRetryableDurationsMs];
    expect(s.mttfNonRetryableSeconds).toBeCloseTo(
      durations.reduce((x, y) => x + y, 0) / durations.length / 1000,
      9,
    );

    const byServer = await source.summary({ ...all(), filters: { server: 'search' } });
    expect(byServer.calls.total).toBe(standardScript('search').length);
    const totals = await source.retryTotals(all());
    expect(totals.map((x) => x.server)).toEqual(['search', 'weather']);
    expect(totals.reduce((x, y) => x + y.total, 0)).toBe(t.retries);
  });

  it('survives a restart of the dashboard without losing or doubling counts', async () => {
    const first = openStore();
    const a = createCapture({ 'service.name': 'agent', 'service.instance.id': 'a' });
    await a.run(standardScript());
    await ingest(first.store, a);
    first.store.close();
    const second = openStore(first.dir);
    await ingest(second.store, a); // the agent re-exports its cumulative values after the restart
    await a.run(standardScript());
    await ingest(second.store, a);
    const s = await second.source.summary(all());
    expect(s.calls.total).toBe(a.truth.calls.total);
    expect(s.retries.total).toBe(a.truth.retries.total);
  });

  it('counts a restarted agent (new start time, counters from zero) without negative or doubled counts', async () => {
    const { store, source } = openStore();
    const before = createCapture({ 'service.name': 'agent', 'service.instance.id': 'same' });
    await before.run(standardScript());
    await ingest(store, before);
    await new Promise((r) => setTimeout(r, 5));
    const after = createCapture({ 'service.name': 'agent', 'service.instance.id': 'same' });
    await after.run(standardScript().slice(0, 12));
    await ingest(store, after);
    const s = await source.summary(all());
    expect(s.calls.total).toBe(before.truth.calls.total + after.truth.calls.total);
    expect(s.calls.success).toBe(before.truth.calls.success + after.truth.calls.success);
  });

  it('tracks breakers from the state gauge and the transition events, once each', async () => {
    const { store, source } = openStore();
    const c = createCapture();
    const flaky: ScriptedCall[] = Array.from({ length: 6 }, () => ({
      server: 'flaky',
      tool: 'ping',
      steps: [503],
    }));
    await c.run(flaky, {
      breakerConsecutiveFailures: 2,
      breakerBreakMs: 60_000,
      maxAttempts: 1,
      breakerWait: false,
    });
    await ingest(store, c);
    const breakers = await source.breakers({ filters: {} });
    expect(breakers).toEqual([{ server: 'flaky', tool: null, state: 'open', since: expect.any(Number) }]);
    expect(Math.abs(breakers[0]!.since - Date.now())).toBeLessThan(10_000);
    const s = await source.summary(all());
    expect(s.calls.rejected).toBe(c.truth.calls.rejected);
    expect(s.calls.rejected).toBeGreaterThan(0);
    const tiles = await source.breakerTiles(all());
    expect(tiles[0]).toMatchObject({
      server: 'flaky',
      state: 'open',
      stale: false,
      lastTransition: { from: 'closed', to: 'open' },
    });
    expect(tiles[0]!.errorRate).toBe(1);
    const n = store.db.prepare('SELECT COUNT(*) AS n FROM breaker_transitions').get() as { n: number };
    expect(n.n).toBe(1);
    const timeline = await source.breakerTimeline(all());
    // the first data of this breaker is its transition (ingested at once, after the run): no "closed" before it
    expect(timeline[0]!.segments.map((x) => x.state)).toEqual(['open']);
    const headline = await source.headline(all());
    expect(headline.openBreakers).toBe(1);
  });

  it('keeps failed and retried calls with their attempts for the waterfall', async () => {
    const { store, source } = openStore();
    const c = createCapture();
    await c.run(standardScript());
    await ingest(store, c);
    const calls = await source.recentCalls(all(), { limit: 100 });
    // 6 retried successes + 3 exhausted + 4 non-retryable + 2 network-then-ok
    expect(calls).toHaveLength(15);
    const exhausted = calls.find((x) => x.outcome === 'failure' && x.attempts === 3)!;
    expect(exhausted.attemptRows.map((a) => a.decision)).toEqual(['retry', 'retry', 'give_up']);
    expect(exhausted.attemptRows[0]).toMatchObject({
      ok: false,
      errorClass: 'retryable',
      errorType: 'unavailable',
    });
    expect(exhausted.wastedRetries).toBe(2);
    const recovered = calls.find((x) => x.outcome === 'success')!;
    expect(recovered.attemptRows.map((a) => a.ok)).toEqual([false, true]);
    expect(await source.recentCalls(all(), { limit: 100, only: 'failed' })).toHaveLength(7);
    expect(await source.recentCalls(all(), { limit: 100, only: 'retried' })).toHaveLength(11);
  });

  it('answers every series and breakdown consistently with the totals', async () => {
    const { store, source } = openStore();
    const c = createCapture();
    await c.run([...standardScript(), ...standardScript('search')]);
    await ingest(store, c);
    const q = all();
    const s = await source.summary(q);
    const eff = await source.efficiencySeries(q);
    expect(eff.points.reduce((x, p) => x + p.total, 0)).toBe(s.retries.total);
    expect(eff.points.reduce((x, p) => x + p.successful, 0)).toBe(s.retries.successful);
    expect(eff.points.length).toBeLessThanOrEqual(201);
    const calls = await source.callSeries(q);
    expect(calls.points.reduce((x, p) => x + p.success + p.failure + p.rejected, 0)).toBe(s.calls.total);
    const byClass = await source.errorSeries(q, 'class');
    expect(byClass.points.reduce((x, p) => x + (p.values.retryable ?? 0), 0)).toBe(
      s.errors.byClass.retryable,
    );
    const byType = await source.errorSeries(q, 'type');
    expect(byType.points.reduce((x, p) => x + (p.values.invalid_request ?? 0), 0)).toBe(
      s.errors.byType.invalid_request,
    );
    expect(await source.errorBreakdown(q, 'server')).toEqual([
      { key: 'search', count: expect.any(Number) },
      { key: 'weather', count: expect.any(Number) },
    ]);
    const tools = await source.errorBreakdown(q, 'tool');
    expect(tools.map((r) => r.key).sort()).toEqual(['get_alerts', 'get_forecast']);
    expect((await source.errorBreakdown(q, 'class')).map((r) => r.key).sort()).toEqual([
      'conditional',
      'non_retryable',
      'retryable',
    ]);
    expect(await source.dimensions(q)).toEqual({
      services: ['test-agent'],
      servers: ['search', 'weather'],
      tools: ['get_alerts', 'get_forecast'],
      variants: [],
    });
    const empty = await source.summary({ from: 0, to: 1000, filters: {} });
    expect(empty.retries.efficiency).toBeNull();
    expect(empty.mttfNonRetryableSeconds).toBeNull();
  });

  it('records the instances seen at ingest and lists transitions newest last', async () => {
    const t0 = Date.now();
    let now = t0;
    const { store, source } = openStore(tempDir(), () => now);
    const a = createCapture({ 'service.name': 'agent', 'service.instance.id': 'a' });
    const b = createCapture({ 'service.name': 'agent', 'service.instance.id': 'b' });
    await a.run(standardScript());
    await ingest(store, a);
    now += 60_000;
    await b.run(
      Array.from({ length: 4 }, () => ({ server: 'flaky', tool: 'ping', steps: [503 as const] })),
      { breakerConsecutiveFailures: 2, breakerBreakMs: 60_000, maxAttempts: 1, breakerWait: false },
    );
    await ingest(store, b);
    now += 60_000;
    await a.run(standardScript().slice(0, 2));
    await ingest(store, a);
    const q = (from: number, to: number, service?: string): TimeQuery => ({ from, to, filters: { service } });
    expect(await source.instances(q(t0, t0 + 300_000))).toEqual([
      { service: 'agent', instance: 'a', lastSeen: t0 + 120_000 },
      { service: 'agent', instance: 'b', lastSeen: t0 + 60_000 },
    ]);
    // b was seen only at +60 s; a from 0 to +120 s
    expect((await source.instances(q(t0 + 90_000, t0 + 100_000))).map((i) => i.instance)).toEqual(['a']);
    expect(await source.instances(q(t0 - 10_000, t0))).toEqual([]);
    expect(await source.instances(q(t0, t0 + 300_000, 'nobody'))).toEqual([]);

    const transitions = await source.transitions({ from: 0, to: Date.now() + 60_000, filters: {} });
    expect(transitions).toEqual([
      {
        ts: expect.any(Number),
        service: 'agent',
        instance: 'b',
        server: 'flaky',
        tool: null,
        from: 'closed',
        to: 'open',
        reason: 'consecutive_failures',
      },
    ]);
    store.db
      .prepare(
        "INSERT INTO breaker_transitions (ts, service, instance, server, tool, from_state, to_state, reason) VALUES (?, 'agent', 'b', 'flaky', '', ?, ?, 'x')",
      )
      .run(transitions[0]!.ts + 1000, 'open', 'half_open');
    const both = await source.transitions({ from: 0, to: Date.now() + 60_000, filters: {} });
    expect(both.map((t) => t.to)).toEqual(['open', 'half_open']);
    const newest = await source.transitions({ from: 0, to: Date.now() + 60_000, filters: {} }, { limit: 1 });
    expect(newest.map((t) => t.to)).toEqual(['half_open']);
  });

  it('migrates a database created before the instances table, filling it from what it knows', () => {
    const dir = tempDir();
    const db = new Database(path.join(dir, 'dashboard.db'));
    db.exec(MIGRATIONS[0] as string);
    db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', '1'), ('created_at', '1')").run();
    db.prepare(
      "INSERT INTO breakers VALUES ('agent', 'a', 'weather', '', 'closed', 1000, 1000, 5000), ('agent', 'a', 'search', '', 'open', 2000, 2000, 7000)",
    ).run();
    db.close();
    const { store } = openStore(dir);
    expect(store.db.prepare('SELECT * FROM instances').all()).toEqual([
      // no metrics export known yet (schema 6): a partial bucket's rate falls back to the newest data
      {
        service: 'agent',
        instance: 'a',
        first_seen: 1000,
        last_seen: 7000,
        export_at: 0,
        export_ms: 0,
        export_steady: 0,
        export_from: 0,
      },
    ]);
    expect(
      (store.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string })
        .value,
    ).toBe(String(MIGRATIONS.length));
  });

  it('migrates stored calls to carry a variant: empty for the calls stored before', async () => {
    const dir = tempDir();
    const db = new Database(path.join(dir, 'dashboard.db'));
    db.exec(MIGRATIONS[0] as string);
    db.exec(MIGRATIONS[1] as string);
    db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', '2'), ('created_at', '1')").run();
    db.prepare(
      `INSERT INTO calls (trace_id, span_id, service, instance, server, method, tool, operation, start_ms,
         duration_ms, outcome, attempts, error_class, error_type, wasted_retries, wasted_time_ms, message)
       VALUES ('t1', 's1', 'agent', 'a', 'weather', 'tools/call', 'get_forecast', 'tools/call', ?, 12, 'failure',
         1, 'non_retryable', 'invalid_params', 0, 0, 'Invalid city')`,
    ).run(Date.now() - 60_000);
    db.close();
    const { source } = openStore(dir);
    const calls = await source.recentCalls(all(), { limit: 10 });
    expect(calls.map((c) => [c.spanId, c.variant, c.errorType])).toEqual([['s1', '', 'invalid_params']]);
    expect(await source.recentCalls({ ...all(), filters: { variant: 'candidate' } }, { limit: 10 })).toEqual(
      [],
    );
  });

  it('enforces retention and the span caps', async () => {
    let now = Date.now();
    const { store, source } = openStore(tempDir(), () => now);
    const c = createCapture();
    await c.run(standardScript());
    await ingest(store, c);
    expect((await source.summary(all())).calls.total).toBe(c.truth.calls.total);
    now += 8 * 86_400_000;
    const { deleted } = store.enforceRetention();
    expect(deleted).toBeGreaterThan(0);
    expect((store.db.prepare('SELECT COUNT(*) AS n FROM facts').get() as { n: number }).n).toBe(0);
    expect((store.db.prepare('SELECT COUNT(*) AS n FROM calls').get() as { n: number }).n).toBe(0);
  });

  it('leaves the alert tables to the AlertStore, which alone prunes them', () => {
    let now = Date.now();
    const { store } = openStore(tempDir(), () => now);
    const alerts = new AlertStore(store.db, () => now);
    const entry = {
      key: 'k',
      source: 'rule' as const,
      name: 'A',
      labels: {},
      state: 'firing',
      value: null,
      summary: '',
    };
    alerts.addHistory({ ...entry, at: now });
    now += 8 * 86_400_000;
    store.enforceRetention();
    expect(alerts.history(10)).toHaveLength(1);
    alerts.prune(now - 7 * 86_400_000);
    expect(alerts.history(10)).toHaveLength(0);
  });

  it('divides rates by the time from the first data, found in the finest tier kept there, on 24h and 7d', async () => {
    const MIN = 60_000;
    const DAY = 86_400_000;
    const NOW = 1_800_000_000_000;
    const { store, source } = openStore(tempDir(), () => NOW);
    const ingest = (points: Array<[number, number]>, service = 'agent') =>
      ingestCalls(
        store,
        points.map(([timeMs, n]) => ({ timeMs, startMs: timeMs - 10_000, asInt: n })),
        { temporality: 1, service },
      );
    // 2 minutes at 1,350 a minute at the end of the range (the 10 s tier)
    ingest(Array.from({ length: 12 }, (_, i) => [NOW - 2 * MIN + i * 10_000 + 5_000, 225]));
    for (const span of [DAY, 7 * DAY]) {
      const h = await source.headline({ from: NOW - span, to: NOW, filters: {} });
      expect(h.calls.total).toBe(2700);
      expect(h.dataFrom).toBe(NOW - 2 * MIN);
      expect(h.callsPerMinute).toBe(1350);
    }
    // data a day and a half ago, off every chart grid: the 10 s tier is gone there, the minute tier is kept
    // (2 days): the rate starts at that minute, not at the chart's hour
    const old = NOW - 1.5 * DAY - 7 * MIN - 30_000;
    ingest([[old, 300]], 'older');
    const week = await source.headline({ from: NOW - 7 * DAY, to: NOW, filters: { service: 'older' } });
    expect(week.dataFrom).toBe(old - 30_000);
    expect(week.dataSeconds).toBe((NOW - (old - 30_000)) / 1000);
  });
  it('draws the newest bucket at the steady rate through the store, whatever the export interval', async () => {
    // one agent per service, 120 calls/min, exporting its cumulative count every 10, 30 or 60 s (arriving
    // 200 ms later); the newest bucket of the 1 h chart (30 s buckets), as the chart divides it
    const START = 1_800_000_000_000;
    let now = START;
    const { store, source } = openStore(tempDir(), () => now);
    const agents = steadyAgents(START);
    let drawn = 0;
    for (let t = START + 2_000; t < START + 12 * 60_000; t += 1_000) {
      for (const a of agents.filter((x) => exportsAt(x, t))) {
        now = t + 200;
        ingestCalls(store, [{ timeMs: t, startMs: a.at, asInt: steadyCount(a.at, t) }], {
          service: a.service,
        });
      }
      now = t + 500;
      if (t < START + 6 * 60_000) continue;
      for (const a of agents) {
        const s = await source.callSeries({
          from: now - 3_600_000,
          to: now,
          filters: { service: a.service },
        });
        const last = s.points.at(-1)!;
        if (last.success === 0) continue;
        drawn++;
        const rate = (last.success / bucketElapsed(s, last.t, last.t)) * 60_000;
        expect(Math.abs(rate - 120), `${a.service} at +${now - START} ms`).toBeLessThan(1e-3);
      }
    }
    expect(drawn).toBeGreaterThan(500);
  });

  it('widens the 15m chart to the export interval: every complete bucket reads the steady rate', async () => {
    // Issue #22: with 30 s exports, 10 s buckets read 0, 0, then 3x. One agent per service, 120 calls/min,
    // exporting its cumulative count every 10, 30 or 60 s; one more flushed twice only (one gap: no cadence).
    const START = 1_800_000_000_000;
    let now = START;
    const { store, source } = openStore(tempDir(), () => now);
    const agents = steadyAgents(START);
    for (let t = START + 2_000; t < START + 12 * 60_000; t += 1_000) {
      for (const a of agents.filter((x) => exportsAt(x, t))) {
        now = t + 200;
        ingestCalls(store, [{ timeMs: t, startMs: a.at, asInt: steadyCount(a.at, t) }], {
          service: a.service,
        });
      }
    }
    for (const t of [START + 60_000, START + 5 * 60_000 + 30_000]) {
      ingestCalls(store, [{ timeMs: t, startMs: START, asInt: steadyCount(START, t) }], { service: 'twice' });
    }
    now = START + 12 * 60_000 + 500;
    for (const a of agents) {
      const s = await source.callSeries({
        from: now - 15 * 60_000,
        to: now,
        filters: { service: a.service },
      });
      expect(s.step, a.service).toBe(a.every);
      expect(s.exportMs, a.service).toBe(a.every === 10_000 ? undefined : a.every);
      const complete = s.points.filter((p) => p.t >= a.at + a.every && p.t < s.partialFrom!);
      expect(complete.length, a.service).toBeGreaterThanOrEqual((9 * 60_000) / a.every);
      for (const p of complete) expect((p.success / s.step) * 60_000, `${a.service} at ${p.t}`).toBe(120);
    }
    const twice = await source.callSeries({
      from: now - 15 * 60_000,
      to: now,
      filters: { service: 'twice' },
    });
    expect(twice.step).toBe(10_000);
    expect(twice.exportMs).toBeUndefined();
  });
});
