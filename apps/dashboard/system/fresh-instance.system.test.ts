import {
  PROM_LABEL_GEN_AI_TOOL_NAME,
  PROM_LABEL_MCP_RESILIENCE_OUTCOME,
  PROM_LABEL_MCP_RESILIENCE_SERVER,
  PROM_MCP_RESILIENCE_CALLS_TOTAL,
} from '@mcp-resilience/middleware/semconv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketElapsed } from '@/lib/data/bucket-elapsed';
import { PrometheusClient } from '@/lib/data/prometheus-client';
import { PrometheusSource } from '@/lib/data/prometheus-source';
import { alignDown } from '@/lib/data/time-buckets';
import { callsChartRows } from '@/ui/overview/calls-chart-rows';
import { compareChartRows } from '@/ui/overview/compare-chart-rows';
import { type RunningPrometheus, startPrometheus } from './prometheus';

/*
 * Issue #22 against a real Prometheus 2.42 (collector-style samples written by promtool, as in
 * `export-interval.system.test.ts`): an instance with calls in fewer than three exports has no measured export
 * interval, and its still-filling bucket fell back to the time since the bucket began (at least a scrape
 * interval): one 60 s export seen in a 15 s bucket read 4x high. The time its count covers is not known, so that
 * bucket is now a gap, drawn neither high nor as a drop; a fleet with a steady interval keeps its exact rate
 * when such an instance exported before the bucket.
 */

const SCRAPE_MS = 15_000;
/** A fixed "now" three hours ago, 37.4 s into a minute: the newest scrape (at 33.2 s) is in the 15 s bucket at 30 s. */
const NOW = alignDown(Date.now() - 3 * 3_600_000, 60_000) + 37_400;
const FROM = NOW - 40 * 60_000;
const SCRAPES = Array.from(
  { length: Math.floor((NOW - alignDown(FROM, SCRAPE_MS) - 3_200) / SCRAPE_MS) + 1 },
  (_, k) => alignDown(FROM, SCRAPE_MS) + 3_200 + k * SCRAPE_MS,
);
const PER_MIN = 120;
const EVERY = 60_000;

interface Agent {
  readonly service: string;
  readonly instance: string;
  /** Its first export: the collector serves its series from then on. */
  readonly first: number;
  /** Exports with calls after `first`, every minute (later exports carry none). */
  readonly exports: number;
}

/** A steady instance: exporting since long before the window, at `phase` into each minute. */
const steady = (service: string, instance: string, phase: number): Agent => ({
  service,
  instance,
  first: alignDown(FROM, EVERY) + phase,
  exports: Number.POSITIVE_INFINITY,
});

const AGENTS: Agent[] = [
  // a fresh instance with one export, seen by the newest scrape
  { service: 'fresh-1', instance: 'i-1', first: NOW - 12_400, exports: 1 },
  // a fresh instance with two exports, the second seen by the newest scrape
  { service: 'fresh-2', instance: 'i-1', first: NOW - 72_400, exports: 2 },
  // a steady fleet of three joined by a fresh instance whose one export is in the still-filling bucket
  ...[5_500, 25_500, 45_500].map((p, i) => steady('fleet-joined', `i-${i}`, p)),
  { service: 'fleet-joined', instance: 'i-new', first: NOW - 12_400, exports: 1 },
  // a steady fleet with an instance that had calls in two exports minutes ago (no interval, not in the bucket)
  ...[5_500, 25_500, 45_500].map((p, i) => steady('fleet-idle', `i-${i}`, p)),
  { service: 'fleet-idle', instance: 'i-idle', first: NOW - 300_000, exports: 2 },
];

/** The counter as scraped: from the first export on, what the exports before each scrape pushed. */
function samples(a: Agent): string {
  const labels = [
    `job="${a.service}"`,
    `instance="${a.instance}"`,
    `${PROM_LABEL_MCP_RESILIENCE_SERVER}="weather"`,
    `${PROM_LABEL_GEN_AI_TOOL_NAME}="get_forecast"`,
    `${PROM_LABEL_MCP_RESILIENCE_OUTCOME}="success"`,
  ].join(',');
  const perExport = (PER_MIN * EVERY) / 60_000;
  return SCRAPES.filter((t) => t >= a.first)
    .map((t) => {
      const exports = Math.min(a.exports, Math.floor((t - a.first) / EVERY) + 1);
      return `${PROM_MCP_RESILIENCE_CALLS_TOTAL}{${labels}} ${exports * perExport} ${(t / 1000).toFixed(3)}`;
    })
    .join('\n');
}

let prometheus: RunningPrometheus;
let source: PrometheusSource;

beforeAll(async () => {
  const family = PROM_MCP_RESILIENCE_CALLS_TOTAL.replace(/_total$/, '');
  prometheus = await startPrometheus({
    targets: [],
    scrapeIntervalMs: SCRAPE_MS,
    backfill: `# TYPE ${family} counter\n${AGENTS.map(samples).join('\n')}\n# EOF\n`,
  });
  source = new PrometheusSource({
    api: new PrometheusClient({ url: prometheus.url, timeoutMs: 10_000 }),
    staleMs: 600_000,
    scrapeIntervalMs: SCRAPE_MS,
    now: () => NOW,
  });
});

afterAll(async () => {
  await prometheus?.stop();
});

const fifteen = (service: string) => ({ from: NOW - 15 * 60_000, to: NOW, filters: { service } });

/** The still-filling bucket as the calls chart draws it: its rate per minute, or null for a gap. */
async function filling(service: string) {
  const s = await source.callSeries(fifteen(service));
  const last = s.points.at(-1)!;
  expect(last.t, service).toBeGreaterThanOrEqual(s.partialFrom!);
  return { series: s, last, drawn: callsChartRows(s).at(-1)!.partialSuccess };
}

describe('the still-filling bucket of an instance without a measured interval (real Prometheus)', () => {
  it('is a gap for a fresh instance with one or two exports, its export in the bucket', async () => {
    for (const service of ['fresh-1', 'fresh-2']) {
      const { last, drawn } = await filling(service);
      // the bucket holds the newest export's 120 calls (it read 480/min: 120 over the 15 s bucket)
      expect(last.success, service).toBe(PER_MIN);
      expect(drawn, service).toBeNull();
    }
  });

  it('is a gap for a steady fleet that a fresh instance joined in the bucket, in compare mode too', async () => {
    const { series, last, drawn } = await filling('fleet-joined');
    expect(series.step).toBe(EVERY);
    // the fresh instance's export is in: the time its count covers is not known
    expect(last.success).toBeGreaterThanOrEqual(PER_MIN);
    expect(drawn).toBeNull();
    const groups = await source.compare(fifteen('fleet-joined'), 'service');
    expect(groups.map((g) => g.key)).toEqual(['fleet-joined']);
    expect(compareChartRows(groups, 'calls').at(-1)!.p0).toBeNull();
  });

  it('keeps the exact rate of a steady fleet whose instance without an interval exported before the bucket', async () => {
    const { series, last, drawn } = await filling('fleet-idle');
    expect(series.step).toBe(EVERY);
    // 37.4 s into the minute, the exports at 5.5 and 25.5 s are in, the one at 45.5 s not yet
    expect(last.success).toBe(2 * PER_MIN);
    expect(drawn).not.toBeNull();
    expect((last.success / bucketElapsed(series, last.t, last.t)) * 60_000).toBeCloseTo(3 * PER_MIN, 6);
    // every complete bucket reads the fleet's rate, the idle instance's two exports included where they are
    const complete = series.points.filter((p) => p.t < series.partialFrom!);
    const rates = complete.map((p) => p.success);
    expect(rates.filter((r) => r === 3 * PER_MIN).length).toBeGreaterThanOrEqual(complete.length - 2);
  });
});
