import { createResilience } from '@mcp-resilience/middleware';
import { createOtelRecorder } from '@mcp-resilience/middleware/otel';
import {
  METRIC_MCP_CLIENT_OPERATION_DURATION,
  METRIC_MCP_RESILIENCE_CALL_DURATION,
  METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME,
  PROM_MCP_CLIENT_OPERATION_DURATION_SECONDS,
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS,
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_COUNT,
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_SUM,
  PROM_MCP_RESILIENCE_CALLS_TOTAL,
  PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
  PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS_TOTAL,
  PROM_MCP_RESILIENCE_ERRORS_TOTAL,
  PROM_MCP_RESILIENCE_RETRIES_TOTAL,
  PROM_MCP_RESILIENCE_RETRY_WASTED_TIME_SECONDS_TOTAL,
  PROM_LABEL_MCP_RESILIENCE_SERVER as SERVER,
  PROM_LABEL_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE as STATE,
} from '@mcp-resilience/middleware/semconv';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MetricsSource } from '@/lib/data/metrics-source';
import { PrometheusClient } from '@/lib/data/prometheus-client';
import { PrometheusSource } from '@/lib/data/prometheus-source';
import type { BreakerSummary, HeadlineWindow, Summary, TimeQuery } from '@/lib/data/types';
import { fmtPct } from '@/lib/format';
import { alignUp } from '@/lib/store/tiers';
import { startTestServer, type TestServer } from '../test/support/runtime';
import {
  countingRecorder,
  emptyTruth,
  executeScripted,
  type GroundTruth,
  SCRIPT_OPTIONS,
  type ScriptedCall,
  standardScript,
} from '../test/support/workload';
import { freePort, type RelabelRule, type RunningPrometheus, startPrometheus } from './prometheus';
import { type Dashboard, launchChromium, openPage, startDashboard } from './support';

/*
 * THE contract suite: one scripted workload, driven through the real middleware (`createResilience` +
 * `createOtelRecorder`) in three agent processes' worth of OpenTelemetry SDK providers, reaches
 *   (a) the embedded store, over OTLP/HTTP (metrics and traces), and
 *   (b) a real Prometheus 2.42 on 127.0.0.1, scraping each agent's SDK Prometheus exporter every second,
 * and every MetricsSource method must give the same numbers from both, and equal to the ground truth counted
 * from the middleware's own events. Then the dashboard server in Prometheus mode (the built dist/server.mjs)
 * must serve the same /api/v1/summary as the embedded one, its pages must render, and a breaker opening must
 * reach a browser live (server-side polling → SSE).
 *
 * The JS SDK's Prometheus exporter names metrics without the unit suffix (`mcp_resilience_call_duration_sum`)
 * and puts the resource in `target_info` only; the collector's exporter (production) appends units and builds
 * `job`/`instance` from `service.name`/`service.instance.id`. The scrape job's metric_relabel_configs below
 * apply that same translation, derived from the semconv constants, so the queries see production names.
 */

const SCRAPE_MS = 1000;
/**
 * How much later than the exact (span event) time PromQL may date a breaker change: the first scrape that saw
 * it (≤ 1 interval), the step after (≤ 1 interval), and a second of slack for a late scrape on a busy machine.
 */
const LATE_MS = 2 * SCRAPE_MS + 2000;
const sanitize = (otelName: string) => otelName.replace(/[^a-zA-Z0-9_]/g, '_');
const RELABEL: RelabelRule[] = [
  {
    source_labels: ['__name__'],
    regex: `(${sanitize(METRIC_MCP_RESILIENCE_CALL_DURATION)})_(bucket|sum|count)`,
    target_label: '__name__',
    replacement: `${PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS}_$2`,
  },
  {
    source_labels: ['__name__'],
    regex: `(${sanitize(METRIC_MCP_CLIENT_OPERATION_DURATION)})_(bucket|sum|count)`,
    target_label: '__name__',
    replacement: `${PROM_MCP_CLIENT_OPERATION_DURATION_SECONDS}_$2`,
  },
  {
    source_labels: ['__name__'],
    regex: `${sanitize(METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME)}_total`,
    target_label: '__name__',
    replacement: PROM_MCP_RESILIENCE_RETRY_WASTED_TIME_SECONDS_TOTAL,
  },
  {
    // (the JS exporter adds no unit suffix; the collector's does)
    source_labels: ['__name__'],
    regex: 'mcp_resilience_model_retries_saved_time_total',
    target_label: '__name__',
    replacement: 'mcp_resilience_model_retries_saved_time_seconds_total',
  },
  { source_labels: ['service_name'], regex: '(.+)', target_label: 'job', replacement: '$1' },
  { source_labels: ['service_instance_id'], regex: '(.+)', target_label: 'instance', replacement: '$1' },
  { regex: 'service_name|service_instance_id', action: 'labeldrop' },
];

interface Agent {
  readonly service: string;
  readonly instance: string;
  readonly truth: GroundTruth;
  readonly target: string;
  /** A resilience instance whose breakers never trip (the standard scripts). */
  readonly steady: ReturnType<typeof createResilience>;
  resilience(options: Record<string, unknown>): ReturnType<typeof createResilience>;
  /** For the numbers other branches' middleware emits (CONTRACT.md names), recorded synthetically here. */
  readonly meter: ReturnType<MeterProvider['getMeter']>;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

async function createAgent(service: string, instance: string, dashboardUrl: string): Promise<Agent> {
  const resource = resourceFromAttributes({ 'service.name': service, 'service.instance.id': instance });
  const port = await freePort();
  const prometheus = new PrometheusExporter({
    host: '127.0.0.1',
    port,
    preventServerStart: true,
    withResourceConstantLabels: /^service\.(name|instance\.id)$/,
  });
  await prometheus.startServer();
  const otlp = new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter({ url: `${dashboardUrl}/v1/metrics` }),
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ resource, readers: [prometheus, otlp] });
  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${dashboardUrl}/v1/traces` }))],
  });
  const truth = emptyTruth();
  const recorder = countingRecorder(createOtelRecorder({ tracerProvider, meterProvider }), truth);
  const resilience = (options: Record<string, unknown>) =>
    createResilience({ recorder, ...SCRIPT_OPTIONS, ...options });
  return {
    service,
    instance,
    truth,
    target: `127.0.0.1:${port}`,
    steady: resilience({}),
    resilience,
    meter: meterProvider.getMeter('synthetic'),
    async flush() {
      await Promise.all([meterProvider.forceFlush(), tracerProvider.forceFlush()]);
    },
    async shutdown() {
      await Promise.all([meterProvider.shutdown(), tracerProvider.shutdown()]);
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const failing = (server: string, n: number): ScriptedCall[] =>
  Array.from({ length: n }, () => ({ server, tool: 'ping', steps: [503] }));
// Fail-fast breakers (no wait at the gate): a scripted call that meets an open breaker is rejected at once, so
// the transitions are exactly the script's.
const TRIP = {
  breakerConsecutiveFailures: 2,
  maxAttempts: 1,
  breakerJitter: 0,
  breakerMaxBreakMs: 600_000,
  breakerWait: false,
};

let embedded: TestServer;
let prometheus: RunningPrometheus;
let agents: Agent[];
let promSource: PrometheusSource;
let q: TimeQuery;
let workEnd: number;
let mid: number;
let before: GroundTruth[];

async function drive(resilience: ReturnType<typeof createResilience>, calls: readonly ScriptedCall[]) {
  for (const call of calls) await executeScripted(resilience, call);
}

/** Until every target was scraped after `t` (so Prometheus holds the values the agents had at `t`). */
async function scrapedAfter(t: number) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const up = await prometheus.query('timestamp(up{job="contract"})');
    if (up.length === agents.length && up.every((s) => s.value * 1000 > t + 20)) return;
    if (Date.now() > deadline)
      throw new Error(`Prometheus did not scrape every agent after ${t}: ${JSON.stringify(up)}`);
    await sleep(200);
  }
}

/** Until Prometheus has scraped `server`'s breaker in `state` (polled: a scrape on a busy machine can be late). */
async function scrapedInState(server: string, state: string) {
  const expr = `${PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE}{${SERVER}="${server}",${STATE}="${state}"} == 1`;
  const deadline = Date.now() + 20_000;
  while ((await prometheus.query(expr)).length === 0) {
    if (Date.now() > deadline) throw new Error(`Prometheus did not scrape ${server}'s breaker ${state}`);
    await sleep(100);
  }
}

beforeAll(async () => {
  embedded = await startTestServer({ BREAKER_STALE_MS: '600000' });
  agents = [
    await createAgent('checkout-agent', 'checkout-1', embedded.url),
    await createAgent('checkout-agent', 'checkout-2', embedded.url),
    await createAgent('search-agent', 'search-1', embedded.url),
  ];
  prometheus = await startPrometheus({
    targets: agents.map((a) => a.target),
    scrapeIntervalMs: SCRAPE_MS,
    metricRelabel: RELABEL,
  });
  promSource = new PrometheusSource({
    api: new PrometheusClient({ url: prometheus.url, timeoutMs: 10_000 }),
    staleMs: 600_000,
    scrapeIntervalMs: SCRAPE_MS,
  });
  const start = Date.now();
  await scrapedAfter(start); // every exporter is up before the first call
  const [a, b, c] = agents as [Agent, Agent, Agent];

  // checkout-1: the standard mix on 'weather', and 'tickets' whose breaker opens and stays open (rejections).
  await drive(a.steady, standardScript('weather'));
  await drive(a.resilience({ ...TRIP, breakerBreakMs: 600_000 }), failing('tickets', 6));
  // another scrape step before the next breaker changes: Prometheus has seen 'tickets' open
  await scrapedInState('tickets', 'open');
  await scrapedAfter(Date.now());
  // Numbers of other branches' middleware (CONTRACT.md): model retries avoided, shed and waiting calls.
  const agentLoop = {
    'mcp.resilience.server': 'weather',
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'get_forecast',
    'mcp.resilience.error.type': 'invalid_params',
  };
  a.meter.createCounter('mcp.resilience.model_retries.avoided').add(3, agentLoop);
  a.meter.createCounter('mcp.resilience.model_retries.saved_time').add(0.75, agentLoop);
  a.meter.createCounter('mcp.resilience.circuit_breaker.shed').add(2, { 'mcp.resilience.server': 'tickets' });
  // (from a process without a 'tickets' breaker: checkout-1's own recorder reports its real gate, 0 waiting)
  c.meter
    .createUpDownCounter('mcp.resilience.circuit_breaker.waiting')
    .add(4, { 'mcp.resilience.server': 'tickets' });
  // checkout-2: the standard mix, and 'bouncy': open → (timer) half-open → a successful probe → closed.
  await drive(b.steady, [...standardScript('weather'), ...standardScript('weather').slice(10, 20)]);
  const bouncy = b.resilience({ ...TRIP, breakerBreakMs: 1500, breakerHalfOpenProbes: 1 });
  await drive(bouncy, failing('bouncy', 3));
  // > 1 scrape in open, then the timer moves it to half-open (seen by a scrape: the probe may go)
  await scrapedInState('bouncy', 'open');
  await scrapedInState('bouncy', 'half_open');
  await drive(bouncy, [{ server: 'bouncy', tool: 'ping', steps: ['ok'] }]);
  // search-1: another service, rate limits (conditional), and a tool of its own.
  await drive(c.steady, [
    ...standardScript('search'),
    ...Array.from({ length: 5 }, () => ({ server: 'search', tool: 'lookup', steps: [429, 'ok'] as const })),
    ...Array.from({ length: 2 }, () => ({ server: 'search', tool: 'lookup', steps: [429] as const })),
  ]);
  await Promise.all(agents.map((x) => x.flush()));

  // Phase 2, after a quiet boundary (past a 10 s bucket of the embedded store, and scraped by Prometheus):
  // a window starting there must count only phase 2 (Prometheus: the last value minus the one before).
  // (at least 2 s after phase 1, so that the last scrape before `mid` holds phase 1's final values)
  mid = alignUp(Date.now() + 2000, 10_000) + 500;
  await sleep(mid - Date.now() + 1200);
  await scrapedAfter(mid);
  before = agents.map((x) => structuredClone(x.truth));
  await drive(a.steady, standardScript('weather').slice(10));
  await drive(
    c.steady,
    Array.from({ length: 3 }, () => ({ server: 'search', tool: 'lookup', steps: [429, 'ok'] as const })),
  );
  workEnd = Date.now();
  await Promise.all(agents.map((x) => x.flush()));
  await scrapedAfter(workEnd);
  q = { from: start - 20_000, to: Date.now() + 1, filters: {} };
}, 120_000);

afterAll(async () => {
  await Promise.all((agents ?? []).map((a) => a.shutdown()));
  await prometheus?.stop();
  await embedded?.close();
});

const sumTruth = (f: (t: GroundTruth) => number) => agents.reduce((s, a) => s + f(a.truth), 0);
const embeddedSource = (): MetricsSource => embedded.runtime.source;

/** The servers whose breakers changed state during the workload. */
const CHANGED = new Set(['tickets', 'bouncy']);

/**
 * Breaker summaries equal apart from `since`, checked against the embedded one: for a breaker that changed
 * state, the embedded store has the transition's exact time (from the span event) and Prometheus dates the
 * change to the step after the first scrape that saw it (LATE_MS). A breaker
 * that never changed is dated by the embedded store to its first OTLP export, by Prometheus to the first scrape
 * that saw it (earlier here: the agents export OTLP once, at the end).
 */
function sinceAgrees(prom: BreakerSummary[], emb: BreakerSummary[]) {
  expect(prom.map(({ since: _, ...b }) => b)).toEqual(emb.map(({ since: _, ...b }) => b));
  for (const [i, p] of prom.entries()) {
    const e = emb[i]!;
    if (CHANGED.has(p.server)) {
      expect(p.since - e.since, `${p.server} since`).toBeGreaterThanOrEqual(-250);
      expect(p.since - e.since, `${p.server} since`).toBeLessThanOrEqual(LATE_MS);
    } else {
      expect(p.since, `${p.server} since`).toBeLessThanOrEqual(e.since + 2 * SCRAPE_MS);
      expect(p.since, `${p.server} since`).toBeGreaterThanOrEqual(q.from);
    }
  }
}

function summaryWithoutSince(s: Summary) {
  return { ...s, breakers: s.breakers.map(({ since: _, ...b }) => b) };
}

describe('contract: embedded store and PromQL (Prometheus 2.42) give the same numbers', () => {
  it('Prometheus holds the production metric names (after the collector-equivalent translation)', async () => {
    const names = (await prometheus.query('count by (__name__) ({__name__=~"mcp_.+"})')).map(
      (s) => s.labels.__name__,
    );
    for (const name of [
      PROM_MCP_RESILIENCE_CALLS_TOTAL,
      PROM_MCP_RESILIENCE_RETRIES_TOTAL,
      PROM_MCP_RESILIENCE_ERRORS_TOTAL,
      PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_SUM,
      PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_COUNT,
      PROM_MCP_RESILIENCE_RETRY_WASTED_TIME_SECONDS_TOTAL,
      PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
      PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS_TOTAL,
    ]) {
      expect(names).toContain(name);
    }
    const jobs = await prometheus.query(`group by (job, instance) (${PROM_MCP_RESILIENCE_CALLS_TOTAL})`);
    expect(jobs.map((s) => `${s.labels.job}/${s.labels.instance}`).sort()).toEqual([
      'checkout-agent/checkout-1',
      'checkout-agent/checkout-2',
      'search-agent/search-1',
    ]);
  });

  it('summary(): calls, retries, efficiency, errors by class and type, wasted retries, MTTF, breakers', async () => {
    const [emb, prom] = await Promise.all([embeddedSource().summary(q), promSource.summary(q)]);
    // the ground truth first: both are exact
    expect(emb.calls).toEqual({
      total: sumTruth((t) => t.calls.total),
      success: sumTruth((t) => t.calls.success),
      failure: sumTruth((t) => t.calls.failure),
      rejected: sumTruth((t) => t.calls.rejected),
    });
    expect(emb.calls.rejected).toBeGreaterThan(0);
    expect(emb.errors.byClass.conditional).toBeGreaterThan(0);
    const retries = sumTruth((t) => t.retries.total);
    const successful = sumTruth((t) => t.retries.successful);
    expect(emb.retries).toEqual({ total: retries, successful, efficiency: successful / retries });
    expect(emb.wastedRetries).toBe(sumTruth((t) => t.wastedRetries));

    expect(prom.calls).toEqual(emb.calls);
    expect(prom.retries.total).toBe(emb.retries.total);
    expect(prom.retries.successful).toBe(emb.retries.successful);
    expect(prom.retries.efficiency).toBeCloseTo(emb.retries.efficiency!, 12);
    expect(prom.errors).toEqual(emb.errors);
    expect(prom.wastedRetries).toBe(emb.wastedRetries);
    expect(prom.wastedRetryTimeSeconds).toBeCloseTo(emb.wastedRetryTimeSeconds, 6);
    expect(prom.wastedRetryTimeSeconds).toBeCloseTo(sumTruth((t) => t.wastedTimeMs) / 1000, 6);
    expect(emb.mttfNonRetryableSeconds).not.toBeNull();
    expect(prom.mttfNonRetryableSeconds).toBeCloseTo(emb.mttfNonRetryableSeconds!, 9);
    sinceAgrees(prom.breakers, emb.breakers);
    expect(prom.breakers.map((b) => `${b.server}:${b.state}`)).toEqual([
      'tickets:open',
      'bouncy:closed',
      'search:closed',
      'weather:closed',
    ]);

    // a week (the long-window form: a 5-minute subquery instead of every raw sample) counts the same
    const week: TimeQuery = { from: q.to - 7 * 86_400_000, to: q.to, filters: {} };
    const [ew, pw] = await Promise.all([embeddedSource().summary(week), promSource.summary(week)]);
    expect(summaryWithoutSince(pw)).toEqual(summaryWithoutSince(ew));
    expect(pw.calls).toEqual(emb.calls);

    for (const filters of [
      { server: 'weather' },
      { service: 'search-agent' },
      { tool: 'get_alerts' },
      { service: 'checkout-agent', server: 'bouncy', tool: 'ping' },
    ]) {
      const [e, p] = await Promise.all([
        embeddedSource().summary({ ...q, filters }),
        promSource.summary({ ...q, filters }),
      ]);
      expect(summaryWithoutSince(p), JSON.stringify(filters)).toEqual(summaryWithoutSince(e));
    }
  });

  it('a window that starts after the counters exist counts only what happened in it', async () => {
    const q2: TimeQuery = { from: mid, to: q.to, filters: {} };
    const [emb, prom] = await Promise.all([embeddedSource().summary(q2), promSource.summary(q2)]);
    const delta = (f: (t: GroundTruth) => number) =>
      agents.reduce((x, a, i) => x + f(a.truth) - f(before[i]!), 0);
    expect(emb.calls.total).toBe(delta((t) => t.calls.total));
    expect(emb.calls.total).toBeGreaterThan(0);
    expect(emb.calls.total).toBeLessThan(sumTruth((t) => t.calls.total));
    expect(emb.retries.total).toBe(delta((t) => t.retries.total));
    expect(emb.retries.successful).toBe(delta((t) => t.retries.successful));
    expect(emb.errors.byClass.conditional).toBe(delta((t) => t.errorsByClass.conditional));
    expect(summaryWithoutSince(prom)).toEqual(summaryWithoutSince(emb));
    const [er, pr] = await Promise.all([embeddedSource().retryTotals(q2), promSource.retryTotals(q2)]);
    expect(pr).toEqual(er);
    // PromQL counts exactly to the scrape: nothing at all in the quiet second before phase 2 (the embedded
    // store counts to its 10 s buckets, so it has no such sub-bucket window)
    const gap = await promSource.summary({ from: mid - 400, to: mid + 400, filters: {} });
    expect(gap.calls.total).toBe(0);
    expect(gap.retries.total).toBe(0);
  });

  it('headline() and retryTotals() (what the alert engine evaluates)', async () => {
    const [emb, prom] = await Promise.all([embeddedSource().headline(q), promSource.headline(q)]);
    // When data exists differs by design: the embedded store dates a point by its (one) OTLP export, Prometheus
    // by each scrape; rates divide by that time. The counts are exact in both.
    const counts = ({ dataFrom: _f, dataSeconds: _s, callsPerMinute: _c, ...rest }: HeadlineWindow) => rest;
    expect({ ...counts(prom), now: counts(prom.now) }).toEqual({ ...counts(emb), now: counts(emb.now) });
    expect(prom.openBreakers).toBe(1);
    // the workload is shorter than 5 minutes: "now" is everything
    expect(emb.now.calls).toEqual(emb.calls);
    expect(emb.modelRetries).toEqual({ avoided: 3, savedSeconds: 0.75, savedCost: null });
    for (const h of [emb, prom]) {
      expect(h.dataFrom).not.toBeNull();
      expect(h.dataSeconds).toBeLessThan((q.to - q.from) / 1000);
      expect(h.callsPerMinute).toBeCloseTo((h.calls.total / h.dataSeconds) * 60, 9);
    }
    const [et, pt] = await Promise.all([embeddedSource().retryTotals(q), promSource.retryTotals(q)]);
    expect(pt).toEqual(et);
    expect(pt.map((t) => t.server)).toEqual(['search', 'weather']);
    // where each server's retries begin (the span the alert's summary names): the same servers, each after the
    // window's start (the workload is shorter than the window), and close together: each backend dates data
    // as it does above (an export against scrapes)
    const [es, ps] = await Promise.all([
      embeddedSource().dataStartByServer(q, 'retries'),
      promSource.dataStartByServer(q, 'retries'),
    ]);
    expect([...ps.keys()].sort()).toEqual([...es.keys()].sort());
    expect([...es.keys()].sort()).toEqual(['search', 'weather']);
    for (const [server, at] of es) {
      expect(at, server).toBeGreaterThan(q.from);
      expect(Math.abs(ps.get(server)! - at), server).toBeLessThanOrEqual(30_000);
    }
  });

  it('series: same buckets, and the same totals as the summary', async () => {
    const s = await embeddedSource().summary(q);
    const [ee, pe] = await Promise.all([
      embeddedSource().efficiencySeries(q),
      promSource.efficiencySeries(q),
    ]);
    expect(pe.step).toBe(ee.step);
    expect(pe.points.map((p) => p.t)).toEqual(ee.points.map((p) => p.t));
    expect(pe.points.reduce((x, p) => x + p.total, 0)).toBe(s.retries.total);
    expect(pe.points.reduce((x, p) => x + p.successful, 0)).toBe(s.retries.successful);
    const [ec, pc] = await Promise.all([embeddedSource().callSeries(q), promSource.callSeries(q)]);
    expect(pc.points.map((p) => p.t)).toEqual(ec.points.map((p) => p.t));
    const callTotals = (pts: typeof pc.points) =>
      pts.reduce(
        (x, p) => ({
          success: x.success + p.success,
          failure: x.failure + p.failure,
          rejected: x.rejected + p.rejected,
        }),
        { success: 0, failure: 0, rejected: 0 },
      );
    expect(callTotals(pc.points)).toEqual(callTotals(ec.points));
    expect(callTotals(pc.points).rejected).toBe(s.calls.rejected);
    for (const by of ['class', 'type'] as const) {
      const [e, p] = await Promise.all([embeddedSource().errorSeries(q, by), promSource.errorSeries(q, by)]);
      const totals = (pts: typeof p.points) => {
        const out: Record<string, number> = {};
        for (const pt of pts) for (const [k, v] of Object.entries(pt.values)) out[k] = (out[k] ?? 0) + v;
        return out;
      };
      expect(totals(p.points), by).toEqual(totals(e.points));
    }
  });

  it('errorBreakdown() by class, type, server and tool; dimensions()', async () => {
    for (const by of ['class', 'type', 'server', 'tool'] as const) {
      const [e, p] = await Promise.all([
        embeddedSource().errorBreakdown(q, by),
        promSource.errorBreakdown(q, by),
      ]);
      expect(p, by).toEqual(e);
    }
    const [ed, pd] = await Promise.all([embeddedSource().dimensions(q), promSource.dimensions(q)]);
    expect(pd).toEqual(ed);
    expect(pd.services).toEqual(['checkout-agent', 'search-agent']);
  });

  it('breakers(), breakerTiles() and breakerTimeline()', async () => {
    const [eb, pb] = await Promise.all([embeddedSource().breakers(q), promSource.breakers(q)]);
    sinceAgrees(pb, eb);
    const [et, pt] = await Promise.all([embeddedSource().breakerTiles(q), promSource.breakerTiles(q)]);
    const tile = (t: (typeof pt)[number]) => ({
      server: t.server,
      tool: t.tool,
      state: t.state,
      stale: t.stale,
      instances: t.instances,
      errorRate: t.errorRate,
      errorRateRange: t.errorRateRange,
      calls: t.calls,
      waiting: t.waiting,
      shed: t.shed,
      sparkCalls: t.sparkline.reduce((x, p) => x + p.calls, 0),
      sparkFailures: t.sparkline.reduce((x, p) => x + p.failures, 0),
      sparkPoints: t.sparkline.length,
      last: t.lastTransition && `${t.lastTransition.from}>${t.lastTransition.to}`,
    });
    expect(pt.map(tile)).toEqual(et.map(tile));
    expect(pt.find((t) => t.server === 'tickets')).toMatchObject({ waiting: 4, shed: 2, errorRate: 1 });
    // "in state" and the transition shown are the same event
    for (const t of [...et, ...pt]) if (t.lastTransition) expect(t.since).toBe(t.lastTransition.at);
    expect(pt.find((t) => t.server === 'bouncy')!.lastTransition).toMatchObject({
      from: 'half_open',
      to: 'closed',
    });
    const [el, pl] = await Promise.all([embeddedSource().breakerTimeline(q), promSource.breakerTimeline(q)]);
    expect(pl.map((r) => `${r.server}:${r.tool}`)).toEqual(el.map((r) => `${r.server}:${r.tool}`));
    for (const [i, row] of pl.entries()) {
      const e = el[i]!;
      const states = (r: typeof row) => r.segments.map((s) => s.state);
      // Prometheus sees the state at each scrape: a change between two scrapes (a moment half-open) can be missed.
      expect(states(row).at(-1), row.server).toBe(states(e).at(-1));
      for (const s of states(row)) expect(states(e), row.server).toContain(s);
      // No state before the first data (issue #22): each backend starts where it first saw the breaker, in the range.
      expect(row.segments[0]!.from).toBeGreaterThanOrEqual(q.from);
      expect(e.segments[0]!.from).toBeGreaterThanOrEqual(q.from);
      expect(row.segments[0]!.from).toBeLessThan(q.to);
      expect(row.segments.at(-1)!.to).toBe(q.to);
    }
    expect(pl.find((r) => r.server === 'tickets')!.segments.map((s) => s.state)).toContain('open');
    expect(pl.find((r) => r.server === 'bouncy')!.segments.map((s) => s.state)).toContain('open');
  });

  it('instances() and transitions()', async () => {
    const [ei, pi] = await Promise.all([embeddedSource().instances(q), promSource.instances(q)]);
    expect(pi.map(({ lastSeen: _, ...i }) => i)).toEqual(ei.map(({ lastSeen: _, ...i }) => i));
    expect(pi.map((i) => i.instance)).toEqual(['checkout-1', 'checkout-2', 'search-1']);
    for (const [k, i] of pi.entries()) {
      expect(Math.abs(i.lastSeen - ei[k]!.lastSeen), i.instance).toBeLessThan(5000);
      expect(i.lastSeen).toBeGreaterThanOrEqual(workEnd);
    }
    const only = await promSource.instances({ ...q, filters: { service: 'search-agent' } });
    expect(only.map((i) => i.instance)).toEqual(['search-1']);

    const [et, pt] = await Promise.all([embeddedSource().transitions(q), promSource.transitions(q)]);
    const key = (t: (typeof pt)[number]) =>
      `${t.service}/${t.instance} ${t.server}:${t.tool} ${t.from}>${t.to}`;
    expect(pt.map(key).sort()).toEqual(et.map(key).sort());
    expect(
      pt.filter((t) => t.server === 'bouncy').map((t) => `${t.from}>${t.to}`),
      'one breaker, in order',
    ).toEqual(['closed>open', 'open>half_open', 'half_open>closed']);
    expect(pt.filter((t) => t.server === 'tickets').map(key)).toEqual([
      'checkout-agent/checkout-1 tickets:null closed>open',
    ]);
    for (const t of pt) {
      // stamped at the end of the 1 s step in which the counter's increase was scraped
      const e = et.find((x) => key(x) === key(t))!;
      expect(t.ts - e.ts, key(t)).toBeGreaterThanOrEqual(0);
      expect(t.ts - e.ts, key(t)).toBeLessThanOrEqual(LATE_MS);
      expect(t.reason).toBe('');
    }
    const filtered = await Promise.all([
      embeddedSource().transitions({ ...q, filters: { server: 'bouncy' } }),
      promSource.transitions({ ...q, filters: { server: 'bouncy' } }),
    ]);
    expect(filtered[1].map(key)).toEqual(filtered[0].map(key));
    expect((await promSource.transitions(q, { limit: 2 })).map(key)).toEqual(filtered[0].slice(-2).map(key));
  });

  it('latency(), compare() and errorMatrix(): the new primitives agree', async () => {
    const [el, pl] = await Promise.all([embeddedSource().latency(q), promSource.latency(q)]);
    expect(el.length).toBeGreaterThan(0);
    expect(pl.map((r) => `${r.server}/${r.tool}/${r.method}:${r.calls}`)).toEqual(
      el.map((r) => `${r.server}/${r.tool}/${r.method}:${r.calls}`),
    );
    for (const [i, p] of pl.entries()) {
      const e = el[i]!;
      for (const k of ['p50', 'p95', 'p99'] as const) {
        expect(e[k], `${e.server} ${k}`).not.toBeNull();
        expect(p[k], `${p.server} ${k}`).toBeCloseTo(e[k]!, 9);
      }
      expect(e.p50!).toBeLessThanOrEqual(e.p95!);
      expect(e.p95!).toBeLessThanOrEqual(e.p99!);
    }
    const s = await embeddedSource().summary(q);
    expect(el.reduce((x, r) => x + r.calls, 0)).toBe(s.calls.total);
    for (const by of ['service', 'server'] as const) {
      const [ec, pc] = await Promise.all([embeddedSource().compare(q, by), promSource.compare(q, by)]);
      const row = (g: (typeof ec)[number]) => ({
        key: g.key,
        calls: g.callsTotal,
        failures: g.failures,
        rejected: g.rejected,
        successes: g.successes,
        requests: g.requests,
        // the time failed calls cost: a histogram's sum, exact in both (microseconds are rounding)
        failedMs: Math.round(g.failedSeconds * 1e3),
        retries: g.retries,
        points: g.calls.points.length,
        bucketed: g.calls.points.reduce((x, p) => x + p.success + p.failure + p.rejected, 0),
      });
      expect(pc.map(row), by).toEqual(ec.map(row));
      // where a group's data starts depends on the backend's resolution (a scrape dates an increase later), as
      // for the headline's rate: within one bucket and a late scrape of each other, inside the window
      for (const [i, g] of ec.entries()) {
        const p = pc[i]!;
        expect(g.dataSeconds, g.key).toBeGreaterThan(0);
        expect(p.dataSeconds, g.key).toBeLessThanOrEqual((q.to - q.from) / 1000);
        expect(Math.abs(p.dataSeconds - g.dataSeconds), g.key).toBeLessThanOrEqual(
          (g.calls.step + LATE_MS) / 1000,
        );
      }
      for (const g of ec) {
        expect(row(g).bucketed).toBe(g.callsTotal);
        expect(g.successes + g.failures + g.rejected, g.key).toBe(g.callsTotal);
        expect(g.requests, g.key).toBe(g.callsTotal - g.rejected + g.retries.total);
      }
      // every call that did not succeed took time, and the groups' failed time adds up to the whole
      const failedSeconds = ec.reduce((x, g) => x + g.failedSeconds, 0);
      expect(failedSeconds).toBeGreaterThan(0);
    }
    // by instance: PromQL only (the embedded facts carry no instance), each agent process on its own
    const byInstance = await promSource.compare(q, 'instance');
    expect(byInstance.map((g) => g.key).sort()).toEqual([
      'checkout-agent/checkout-1',
      'checkout-agent/checkout-2',
      'search-agent/search-1',
    ]);
    expect(byInstance.reduce((x, g) => x + g.callsTotal, 0)).toBe(s.calls.total);
    for (const g of byInstance) {
      const a = agents.find((x) => `${x.service}/${x.instance}` === g.key)!;
      expect(g.callsTotal, g.key).toBe(a.truth.calls.total);
    }
    await expect(embeddedSource().compare(q, 'instance')).rejects.toThrow(/no per-instance counts/);
    const [em, pm] = await Promise.all([embeddedSource().errorMatrix(q), promSource.errorMatrix(q)]);
    expect(pm).toEqual(em);
    const byType = await embeddedSource().errorBreakdown(q, 'type');
    for (const r of byType) {
      expect(em.filter((m) => m.type === r.key).reduce((x, m) => x + m.count, 0)).toBe(r.count);
    }
  });

  it('capabilities: spans only in the embedded store', async () => {
    expect(embeddedSource().capabilities.traces).toBe(true);
    expect(promSource.capabilities).toEqual({ traces: false, push: false, instances: true });
    expect(embeddedSource().capabilities.instances).toBe(false);
    expect((await embeddedSource().recentCalls(q, { limit: 10 })).length).toBeGreaterThan(0);
    expect(await promSource.recentCalls(q, { limit: 10 })).toEqual([]);
  });
});

describe('the dashboard server in Prometheus mode (built dist/server.mjs)', () => {
  let dashboard: Dashboard;
  let browser: Browser | undefined;
  beforeAll(async () => {
    dashboard = await startDashboard({
      DASHBOARD_SOURCE: 'prometheus',
      PROMETHEUS_URL: prometheus.url,
      PROMETHEUS_SCRAPE_INTERVAL_MS: String(SCRAPE_MS),
      PROMETHEUS_POLL_INTERVAL_MS: '500',
      ALERT_EVAL_INTERVAL_MS: '60000',
    });
  });
  afterAll(async () => {
    await browser?.close();
    await dashboard?.stop();
  });

  it('serves the same /api/v1/summary, /api/v1/instances and /api/v1/transitions as the embedded mode', async () => {
    const qs = `from=${q.from}&to=${q.to}`;
    const get = async (base: string, path: string) => {
      const r = await fetch(`${base}${path}`);
      expect(r.status, `${base}${path}`).toBe(200);
      return r.json();
    };
    const [e, p] = await Promise.all([
      get(embedded.url, `/api/v1/summary?${qs}`),
      get(dashboard.url, `/api/v1/summary?${qs}`),
    ]);
    expect(summaryWithoutSince(p)).toEqual(summaryWithoutSince(e));
    sinceAgrees(p.breakers, e.breakers);
    for (const extra of ['&server=weather', '&service=search-agent', '&tool=get_forecast']) {
      const [e2, p2] = await Promise.all([
        get(embedded.url, `/api/v1/summary?${qs}${extra}`),
        get(dashboard.url, `/api/v1/summary?${qs}${extra}`),
      ]);
      expect(summaryWithoutSince(p2), extra).toEqual(summaryWithoutSince(e2));
    }
    const [ei, pi] = await Promise.all([
      get(embedded.url, `/api/v1/instances?${qs}`),
      get(dashboard.url, `/api/v1/instances?${qs}`),
    ]);
    const names = (r: { instances: Array<{ service: string; instance: string }> }) =>
      r.instances.map((i) => `${i.service}/${i.instance}`);
    expect(names(pi)).toEqual(names(ei));
    const [et, pt] = await Promise.all([
      get(embedded.url, `/api/v1/transitions?${qs}&service=checkout-agent`),
      get(dashboard.url, `/api/v1/transitions?${qs}&service=checkout-agent`),
    ]);
    const edges = (r: { transitions: Array<{ server: string; from: string; to: string }> }) =>
      r.transitions.map((t) => `${t.server} ${t.from}>${t.to}`);
    expect(edges(pt)).toEqual(edges(et));
    const bad = await fetch(`${dashboard.url}/api/v1/summary?from=later`);
    expect(bad.status).toBe(400);
    // OTLP is refused with a clear message (send telemetry to the collector instead)
    const otlp = await fetch(`${dashboard.url}/v1/metrics`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(otlp.status).toBe(404);
    expect((await otlp.json()).message).toContain('DASHBOARD_SOURCE=prometheus');
  });

  it('renders the overview, breakers and errors pages from PromQL; the calls page says where traces are', async () => {
    for (const path of [
      '/?range=15m',
      '/?range=15m&compare=instance',
      '/breakers?range=15m',
      '/errors?range=15m',
      '/calls?range=15m',
    ]) {
      const r = await fetch(`${dashboard.url}${path}`);
      expect(r.status, path).toBe(200);
      const html = await r.text();
      expect(html, path).not.toContain('Something went wrong');
      if (path.startsWith('/calls')) expect(html).toContain('Traces are in your tracing backend');
      if (path.startsWith('/breakers')) expect(html).toContain('data-server="tickets"');
      if (path.startsWith('/errors')) expect(html).toContain('invalid_request');
      if (path.includes('compare=instance')) {
        // streamed in: each agent process is a row of the compare table, and the overview has its latency table
        expect(html).toContain('data-key="checkout-agent/checkout-2"');
        expect(html).toContain('data-testid="latency-table"');
      }
    }
  });

  it('a breaker opening reaches the browser live (server-side polling → SSE), without a reload', async () => {
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await openPage(page, `${dashboard.url}/?range=15m`);
    await page.waitForSelector('[data-testid="efficiency-value"]');
    const emb = await embeddedSource().headline({ ...q, to: Date.now(), from: Date.now() - 15 * 60_000 });
    expect(await page.textContent('[data-testid="efficiency-ratio"]')).toContain(
      `${emb.retries.successful}/${emb.retries.total} retries successful`,
    );
    expect(await page.textContent('[data-testid="efficiency-value"]')).toBe(fmtPct(emb.retries.efficiency));
    await openPage(page, `${dashboard.url}/breakers?range=15m`);
    await page.waitForSelector('[data-testid="breaker-tile"][data-server="tickets"][data-state="open"]');
    await page.waitForSelector('[data-testid="live-status"].on');
    await page.evaluate(() => {
      (window as unknown as { __noReload: boolean }).__noReload = true;
    });
    const agent = agents[2]!;
    await drive(agent.resilience({ ...TRIP, breakerBreakMs: 600_000 }), failing('late', 3));
    // a scrape (1 s) + a poll (0.5 s) + the SSE push: waited for, not timed (speed is the bench's business); the
    // backstop only ends a hang
    await page.waitForSelector('[data-testid="breaker-tile"][data-server="late"][data-state="open"]', {
      timeout: 60_000,
    });
    expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
  });
});
