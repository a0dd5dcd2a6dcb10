import {
  PROM_LABEL_GEN_AI_TOOL_NAME,
  PROM_LABEL_MCP_METHOD_NAME,
  PROM_LABEL_MCP_RESILIENCE_OUTCOME,
  PROM_LABEL_MCP_RESILIENCE_SERVER,
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_BUCKET,
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_COUNT,
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_SUM,
} from '@mcp-resilience/middleware/semconv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrometheusClient } from '@/lib/data/prometheus-client';
import { PrometheusSource } from '@/lib/data/prometheus-source';
import { alignDown } from '@/lib/data/time-buckets';
import { type RunningPrometheus, startPrometheus } from './prometheus';

/*
 * Issue #22 in Prometheus mode (a real Prometheus 2.42, its TSDB filled by promtool): a foreign exporter's
 * call-duration histogram of tool `find` without `mcp_method_name`, beside the middleware's `tools/call` one,
 * gave `find` two latency rows, each linking to all of the tool's calls. One tool is one row, holding both
 * exporters' calls; what its link asks for (server and tool) reads the same calls. Calls without a tool keep a
 * row per method. (The embedded store: `test/latency-tool-row.test.ts`.)
 */

const SCRAPE_MS = 15_000;
const NOW = alignDown(Date.now() - 3 * 3_600_000, 60_000) + 37_400;
const FROM = NOW - 40 * 60_000;
const SCRAPES = Array.from({ length: Math.floor((NOW - FROM) / SCRAPE_MS) }, (_, k) => FROM + k * SCRAPE_MS);

interface Histogram {
  readonly labels: Record<string, string>;
  /** Every call of the series lasts this long (s). */
  readonly seconds: number;
}

const HISTOGRAMS: Histogram[] = [
  // the middleware's own: tool and method
  {
    labels: { [PROM_LABEL_GEN_AI_TOOL_NAME]: 'find', [PROM_LABEL_MCP_METHOD_NAME]: 'tools/call' },
    seconds: 0.05,
  },
  // a foreign exporter's: the tool only
  { labels: { [PROM_LABEL_GEN_AI_TOOL_NAME]: 'find' }, seconds: 0.8 },
  // no tool: its method's row
  { labels: { [PROM_LABEL_MCP_METHOD_NAME]: 'tools/list' }, seconds: 0.02 },
];
const BOUNDS = ['0.01', '0.025', '0.1', '1', '+Inf'];

/** One call per scrape in each series, as cumulative histogram samples (three families, as scraped). */
function families(): string {
  const lines = (name: string, value: (h: Histogram, n: number, le?: string) => number, withLe: boolean) =>
    HISTOGRAMS.flatMap((h, i) =>
      (withLe ? BOUNDS : [undefined]).flatMap((le) => {
        const labels = Object.entries({
          job: 'agents',
          instance: `i-${i}`,
          [PROM_LABEL_MCP_RESILIENCE_SERVER]: 'search',
          [PROM_LABEL_MCP_RESILIENCE_OUTCOME]: 'success',
          ...h.labels,
          ...(le === undefined ? {} : { le }),
        })
          .map(([k, v]) => `${k}="${v}"`)
          .join(',');
        return SCRAPES.map((t, n) => `${name}{${labels}} ${value(h, n + 1, le)} ${(t / 1000).toFixed(3)}`);
      }),
    );
  const within = (h: Histogram, le: string | undefined) => le === '+Inf' || h.seconds <= Number(le);
  return [
    `# TYPE ${PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_BUCKET} unknown`,
    ...lines(PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_BUCKET, (h, n, le) => (within(h, le) ? n : 0), true),
    `# TYPE ${PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_COUNT} unknown`,
    ...lines(PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_COUNT, (_, n) => n, false),
    `# TYPE ${PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_SUM} unknown`,
    ...lines(PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_SUM, (h, n) => n * h.seconds, false),
    '# EOF',
    '',
  ].join('\n');
}

let prometheus: RunningPrometheus;
let source: PrometheusSource;

beforeAll(async () => {
  prometheus = await startPrometheus({ targets: [], scrapeIntervalMs: SCRAPE_MS, backfill: families() });
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

const q = (filters = {}) => ({ from: NOW - 15 * 60_000, to: NOW, filters });

describe('latency rows in Prometheus mode (a foreign exporter names no method)', () => {
  it('gives a tool one row holding the calls of both exporters', async () => {
    const rows = await source.latency(q());
    expect(rows.map((r) => [r.server, r.tool, r.method])).toEqual([
      ['search', '', 'tools/list'],
      ['search', 'find', ''],
    ]);
    const [list, find] = rows;
    expect(list!.calls).toBeGreaterThan(0);
    // both series get one call per scrape: the tool's row holds twice the calls of the tools/list one
    expect(find!.calls).toBe(2 * list!.calls);
    // half of find's calls last 50 ms, half 800 ms (the foreign ones): its p95 is among the foreign ones
    expect(find!.p50).toBeLessThanOrEqual(0.1);
    expect(find!.p95).toBeGreaterThan(0.1);
    expect(find!.p95).toBeLessThanOrEqual(1);
  });

  it("reads the same calls where the row's link points (server and tool, no method)", async () => {
    const [, find] = await source.latency(q());
    const linked = await source.latency(q({ server: 'search', tool: 'find' }));
    expect(linked).toEqual([find]);
  });
});
