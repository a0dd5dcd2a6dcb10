import fs from 'node:fs';
import path from 'node:path';
import { createOtelRecorder } from '@mcp-resilience/middleware/otel';
import {
  METRIC_MCP_RESILIENCE_CALL_DURATION,
  PROM_LABEL_MCP_RESILIENCE_VARIANT,
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS,
  PROM_MCP_RESILIENCE_CALLS_TOTAL,
  PROM_MCP_RESILIENCE_SHADOW_DISAGREEMENTS_TOTAL,
} from '@mcp-resilience/middleware/semconv';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shapeExperiment } from '@/lib/data/experiments';
import type { ExperimentData } from '@/lib/data/experiments-types';
import { PrometheusClient } from '@/lib/data/prometheus-client';
import { PrometheusSource } from '@/lib/data/prometheus-source';
import type { TimeQuery } from '@/lib/data/types';
import { type CanaryTruth, canaryRecorder, runCanary } from '../test/support/canary-workload';
import { startTestServer, type TestServer } from '../test/support/runtime';
import { freePort, type RunningPrometheus, startPrometheus } from './prometheus';
import { ARTIFACTS, launchChromium, openPage, startDashboard } from './support';

/*
 * The experiments contract: a canary (two variants and a shadow classifier) through the real middleware and
 * OpenTelemetry SDK reaches the embedded store over OTLP/HTTP and a real Prometheus 2.42 by scraping; both
 * backends' `experimentData` must equal each other and the ground truth counted from the middleware's events.
 */

const SCRAPE_MS = 1000;
const sanitize = (otelName: string) => otelName.replace(/[^a-zA-Z0-9_]/g, '_');
/** The collector's translation (unit suffix, job/instance from the resource), as in the main contract suite. */
const RELABEL = [
  {
    source_labels: ['__name__'],
    regex: `(${sanitize(METRIC_MCP_RESILIENCE_CALL_DURATION)})_(bucket|sum|count)`,
    target_label: '__name__',
    replacement: `${PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS}_$2`,
  },
  { source_labels: ['service_name'], regex: '(.+)', target_label: 'job', replacement: '$1' },
  { source_labels: ['service_instance_id'], regex: '(.+)', target_label: 'instance', replacement: '$1' },
  { regex: 'service_name|service_instance_id', action: 'labeldrop' },
];

let embedded: TestServer;
let prometheus: RunningPrometheus;
let promSource: PrometheusSource;
let truth: CanaryTruth;
let q: TimeQuery;
let shutdown: () => Promise<void>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  embedded = await startTestServer();
  const port = await freePort();
  const exporter = new PrometheusExporter({
    host: '127.0.0.1',
    port,
    preventServerStart: true,
    withResourceConstantLabels: /^service\.(name|instance\.id)$/,
  });
  await exporter.startServer();
  const resource = resourceFromAttributes({
    'service.name': 'canary-agent',
    'service.instance.id': 'canary-1',
  });
  const meterProvider = new MeterProvider({
    resource,
    readers: [
      exporter,
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: `${embedded.url}/v1/metrics` }),
        exportIntervalMillis: 3_600_000,
      }),
    ],
  });
  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${embedded.url}/v1/traces` }))],
  });
  shutdown = async () => {
    await Promise.all([meterProvider.shutdown(), tracerProvider.shutdown()]);
  };
  prometheus = await startPrometheus({
    targets: [`127.0.0.1:${port}`],
    scrapeIntervalMs: SCRAPE_MS,
    metricRelabel: RELABEL,
  });
  promSource = new PrometheusSource({
    api: new PrometheusClient({ url: prometheus.url, timeoutMs: 10_000 }),
    staleMs: 600_000,
    scrapeIntervalMs: SCRAPE_MS,
  });
  const start = Date.now();
  const counted = canaryRecorder(createOtelRecorder({ tracerProvider, meterProvider }));
  truth = counted.truth;
  await runCanary(counted.recorder, 600);
  await Promise.all([meterProvider.forceFlush(), tracerProvider.forceFlush()]);
  const end = Date.now();
  const deadline = end + 20_000;
  for (;;) {
    const up = await prometheus.query('timestamp(up{job="contract"})');
    if (up.length === 1 && up[0]!.value * 1000 > end + 20) break;
    if (Date.now() > deadline) throw new Error('Prometheus did not scrape the agent after the workload');
    await sleep(200);
  }
  q = { from: start - 20_000, to: Date.now() + 1, filters: {} };
}, 120_000);

afterAll(async () => {
  await shutdown?.();
  await prometheus?.stop();
  await embedded?.close();
});

/** The data without the parts only one backend has (examples) and with latency read as its p95. */
const comparable = (d: ExperimentData) => ({
  variants: d.variants.map(({ latency, ...v }) => v),
  errors: d.errors,
  disagreements: d.disagreements,
});

describe('experiments contract: embedded store and PromQL', () => {
  it('Prometheus holds the variant label and the disagreements counter under their translated names', async () => {
    const variants = await prometheus.query(
      `sum by (${PROM_LABEL_MCP_RESILIENCE_VARIANT}) (${PROM_MCP_RESILIENCE_CALLS_TOTAL})`,
    );
    expect(variants.map((s) => s.labels[PROM_LABEL_MCP_RESILIENCE_VARIANT]).sort()).toEqual([
      'candidate',
      'control',
    ]);
    expect(await prometheus.query(PROM_MCP_RESILIENCE_SHADOW_DISAGREEMENTS_TOTAL)).not.toEqual([]);
  });

  it('both give the ground truth: calls, retries, disagreements per variant', async () => {
    const [emb, prom] = await Promise.all([
      embedded.runtime.source.experimentData(q),
      promSource.experimentData(q),
    ]);
    for (const name of ['control', 'candidate']) {
      const v = emb.variants.find((x) => x.variant === name);
      expect(v?.calls, name).toEqual(truth.calls[name]);
      expect(v?.retries, name).toEqual(truth.retries[name] ?? { total: 0, successful: 0 });
    }
    const disagreements = Object.fromEntries(
      emb.disagreements.map((d) => [
        [d.variant, d.errorClass, d.errorType, d.shadowClass, d.shadowType].join('|'),
        d.count,
      ]),
    );
    expect(disagreements).toEqual(truth.disagreements);
    // The control's retried "not found" 503s are where the shadow (the candidate's rule) disagrees.
    expect(Object.keys(truth.disagreements)).toEqual([
      'control|retryable|unavailable|non_retryable|not_found',
    ]);
    expect(comparable(prom)).toEqual(comparable(emb));
    for (const [i, v] of emb.variants.entries()) {
      expect(v.nonRetryable.count).toBeGreaterThan(0);
      expect(prom.variants[i]!.nonRetryable.sumSeconds).toBeCloseTo(v.nonRetryable.sumSeconds, 9);
    }
  });

  it('both shape into the same page: intervals, p95, verdict and matrix', async () => {
    const [emb, prom] = await Promise.all([
      embedded.runtime.source.experimentData(q),
      promSource.experimentData(q),
    ]);
    const [e, p] = [shapeExperiment(emb), shapeExperiment(prom)];
    expect(p.variants).toEqual(e.variants);
    expect(p.comparisons).toEqual(e.comparisons);
    expect(p.shadow.matrix).toEqual(e.shadow.matrix);
    const control = e.variants.find((v) => v.variant === 'control')!;
    const candidate = e.variants.find((v) => v.variant === 'candidate')!;
    expect(control.p95Seconds).not.toBeNull();
    // The candidate stops retrying what cannot succeed: its efficiency is significantly better, success equal.
    expect(candidate.efficiency!.rate).toBeGreaterThan(control.efficiency!.rate);
    expect(e.comparisons[0]?.verdict).toBe('better');
    expect(e.comparisons[0]?.text).toMatch(/^candidate is better than control: retry efficiency \+/);
    // Examples are kept by the embedded store only, each the attempt span of a stored call.
    expect(emb.examples!.length).toBe(
      truth.disagreements['control|retryable|unavailable|non_retryable|not_found'],
    );
    expect(prom.examples).toBeNull();
    const calls = await embedded.runtime.source.recentCalls(q, { limit: 500 });
    const ids = new Set(calls.map((c) => c.spanId));
    expect(emb.examples!.every((x) => ids.has(x.callSpanId))).toBe(true);
  });

  it('filters by server on both', async () => {
    const other: TimeQuery = { ...q, filters: { server: 'elsewhere' } };
    const [emb, prom] = await Promise.all([
      embedded.runtime.source.experimentData(other),
      promSource.experimentData(other),
    ]);
    expect(emb.variants).toEqual([]);
    expect(prom.variants).toEqual([]);
  });
});

describe('Experiments page in Prometheus mode (built server, Chromium)', () => {
  it('renders the same verdict, and says where the example calls are', async () => {
    const dashboard = await startDashboard({
      DASHBOARD_SOURCE: 'prometheus',
      PROMETHEUS_URL: prometheus.url,
      PROMETHEUS_SCRAPE_INTERVAL_MS: String(SCRAPE_MS),
      ALERT_EVAL_INTERVAL_MS: '60000',
    });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await openPage(page, `${dashboard.url}/experiments?range=1h`);
      const verdict = page.locator('[data-testid="experiment-verdicts"] [data-verdict]');
      expect(await verdict.getAttribute('data-verdict')).toBe('better');
      const expected = shapeExperiment(await promSource.experimentData(q)).comparisons[0]!.text;
      expect(await verdict.textContent()).toContain(expected.slice(0, expected.indexOf('(p')));
      expect(await page.locator('[data-testid="shadow-disagreements"]').textContent()).toContain(
        'in your tracing backend',
      );
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, 'experiments-prometheus.png'), fullPage: true });
    } finally {
      await browser.close();
      await dashboard.stop();
    }
  });
});
