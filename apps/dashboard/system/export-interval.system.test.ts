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
import { type RunningPrometheus, startPrometheus } from './prometheus';

/*
 * Issue #22 against a real Prometheus 2.42: agents export every 30 or 60 s to the collector, whose prometheus
 * exporter serves the value each export pushed without a timestamp (`send_timestamps` is off by default), and
 * Prometheus scrapes it every 15 s, stamping each sample with the scrape's time: the counter steps once per
 * export. Those samples are written into the TSDB by promtool (three hours ago, at chosen phases), so the
 * charts are asked at a fixed "now" without waiting for real scrapes.
 *   - The 15m chart's complete buckets must read the agents' steady 120 calls/min each (10 or 20 s buckets
 *     read 0, 0, then 3x): the step is widened to the interval measured from the samples.
 *   - The still-filling bucket must read the same rate, or be a gap while no export is in yet (it read up to
 *     6x high: one export's count over the few seconds since the bucket began).
 */

const SCRAPE_MS = 15_000;
/** A fixed "now" three hours ago (past the head block), off the scrape grid and the bucket edges. */
const NOW = alignDown(Date.now() - 3 * 3_600_000, 60_000) + 37_400;
const FROM = NOW - 40 * 60_000;
/** Scrapes at a target's own offset, as Prometheus spreads them. */
const SCRAPES = Array.from(
  { length: Math.floor((NOW - alignDown(FROM, SCRAPE_MS) - 3_200) / SCRAPE_MS) + 1 },
  (_, k) => alignDown(FROM, SCRAPE_MS) + 3_200 + k * SCRAPE_MS,
);
const PER_MIN = 120;

interface Agent {
  readonly service: string;
  readonly instance: string;
  readonly every: number;
  readonly phase: number;
}

const single = (every: number, phases: number[]): Agent[] =>
  phases.map((p) => ({
    service: `every-${every / 1000}s-at-${p}`,
    instance: 'i-1',
    every,
    phase: p * 1000 + 500,
  }));
const AGENTS: Agent[] = [
  ...single(60_000, [0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56]),
  ...single(30_000, [0, 5, 10, 15, 20, 25]),
  // one service of three instances at different phases: the fleet's rate is their sum
  ...[5, 25, 45].map((p, i) => ({
    service: 'fleet',
    instance: `i-${i}`,
    every: 60_000,
    phase: p * 1000 + 500,
  })),
];

/** The counter as scraped: its value at each scrape is what the exports before that scrape pushed. */
function samples(a: Agent): string {
  const origin = alignDown(FROM, 60_000) + a.phase;
  const labels = [
    `job="${a.service}"`,
    `instance="${a.instance}"`,
    `${PROM_LABEL_MCP_RESILIENCE_SERVER}="weather"`,
    `${PROM_LABEL_GEN_AI_TOOL_NAME}="get_forecast"`,
    `${PROM_LABEL_MCP_RESILIENCE_OUTCOME}="success"`,
  ].join(',');
  const perExport = (PER_MIN * a.every) / 60_000;
  return SCRAPES.map((t) => {
    const exports = Math.floor((t - origin) / a.every) + 1;
    return `${PROM_MCP_RESILIENCE_CALLS_TOTAL}{${labels}} ${1000 + exports * perExport} ${(t / 1000).toFixed(3)}`;
  }).join('\n');
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

const services = [...new Set(AGENTS.map((a) => a.service))];
const agentsOf = (service: string) => AGENTS.filter((a) => a.service === service);
const fifteen = (service: string) => ({ from: NOW - 15 * 60_000, to: NOW, filters: { service } });

describe('the export interval in Prometheus mode (real Prometheus, collector-style samples)', () => {
  it('widens the 15m chart to the export interval: every complete bucket reads the steady rate', async () => {
    for (const service of services) {
      const mine = agentsOf(service);
      const s = await source.callSeries(fifteen(service));
      expect(s.step, service).toBe(mine[0]!.every);
      expect(s.exportMs, service).toBe(mine[0]!.every);
      const complete = s.points.filter((p) => p.t < s.partialFrom!);
      expect(complete.length, service).toBeGreaterThanOrEqual((14 * 60_000) / s.step);
      for (const p of complete) {
        expect((p.success / s.step) * 60_000, `${service} at ${p.t - NOW} ms`).toBe(PER_MIN * mine.length);
      }
    }
  });

  it('reads the still-filling bucket at the same rate, or leaves it a gap until an export is in', async () => {
    let drawn = 0;
    for (const service of services) {
      const s = await source.callSeries(fifteen(service));
      const last = s.points.at(-1)!;
      expect(last.t, service).toBeGreaterThanOrEqual(s.partialFrom!);
      if (last.success === 0) continue;
      drawn++;
      const rate = (last.success / bucketElapsed(s, last.t, last.t)) * 60_000;
      expect(Math.abs(rate - PER_MIN * agentsOf(service).length), service).toBeLessThan(1e-6);
    }
    // (15 + 6 + 1 services: those whose export was scraped since their bucket began)
    expect(drawn).toBeGreaterThanOrEqual(8);
  });
});
