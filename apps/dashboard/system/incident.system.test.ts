import fs from 'node:fs';
import path from 'node:path';
import { METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE } from '@mcp-resilience/middleware/semconv';
import { createFakeClock, type FakeClock } from '@mcp-resilience/middleware/testing';
import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fmtTime } from '@/lib/format';
import { datedMetrics } from '../test/support/dated-metrics';
import { driveClock } from '../test/support/drive-clock';
import { createCapture, serialize } from '../test/support/otel';
import { type ScriptedCall, standardScript } from '../test/support/workload';
import { waitForReactIdle, watchReactCommits } from './react-idle';
import { ARTIFACTS, type Dashboard, launchChromium, openPage, startDashboard } from './support';

/*
 * The incident view and the truth fixes of issue #15 in real Chromium against the built dashboard, fed over
 * its OTLP endpoint by the real middleware + OTel SDK: a resilient agent whose breaker on `down` opens, and a
 * naive agent (no breaker: it reports no breaker state) failing on the same server.
 */

let dashboard: Dashboard;
let browser: Browser;
let page: Page;
const errors: string[] = [];

const resilient = createCapture({ 'service.name': 'resilient-agent', 'service.instance.id': 'r-1' });
const naive = createCapture({ 'service.name': 'naive-agent', 'service.instance.id': 'n-1' });

/** A process without breakers: the same export minus the breaker state gauge. */
const withoutBreakers = (rm: ResourceMetrics): ResourceMetrics => ({
  ...rm,
  scopeMetrics: rm.scopeMetrics.map((sm) => ({
    ...sm,
    metrics: sm.metrics.filter((m) => m.descriptor.name !== METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE),
  })),
});

async function post(signal: 'traces' | 'metrics', body: Uint8Array) {
  const r = await fetch(`${dashboard.url}/v1/${signal}`, {
    method: 'POST',
    body: body as BodyInit,
    headers: { 'content-type': 'application/x-protobuf' },
  });
  expect(r.status).toBe(200);
}

/** Exports what the agent recorded, its metric points dated on the agents' clock (series from `from`). */
async function exportAgent(agent: typeof resilient, clock: FakeClock, from: number, strip = false) {
  const spans = agent.spans();
  agent.resetSpans();
  if (spans.length > 0) await post('traces', serialize.tracesProto(spans));
  const rm = datedMetrics(await agent.metrics(), from, clock.now());
  await post('metrics', serialize.metricsProto(strip ? withoutBreakers(rm) : rm));
}

/** Resolves once the wall clock has passed `t` (a deadline, not a race). */
async function wallClockPast(t: number): Promise<void> {
  while (Date.now() <= t) await new Promise((r) => setTimeout(r, t + 1 - Date.now()));
}

const BUCKET_MS = 10_000;
/** The most virtual time the workload may take (asserted): it starts at least this long before its bucket ends. */
const WORKLOAD_MS = 2_000;
/**
 * Where the agents' virtual clock starts: now's bucket from its start, but not before the store existed (a
 * cumulative series that started earlier is baselined), and the next bucket when the rest of this one is short.
 */
function workloadStart(now: number, storeCreated: number): number {
  const bucket = now - (now % BUCKET_MS);
  const start = Math.max(bucket, storeCreated);
  return start + WORKLOAD_MS < bucket + BUCKET_MS ? start : bucket + BUCKET_MS;
}

/** No earlier than the dashboard's store was created. */
let storeCreated = 0;
let dataBucket = 0;
const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });
const down = (n: number): ScriptedCall[] =>
  Array.from({ length: n }, () => ({ server: 'down', tool: 'lookup', steps: [503] }));

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  dashboard = await startDashboard();
  storeCreated = Date.now();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await watchReactCommits(page);
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
});

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

describe('incident view in Chromium', () => {
  it('an empty dashboard shows the exact OTEL_EXPORTER_OTLP_ENDPOINT line and a copyable snippet', async () => {
    await openPage(page, `${dashboard.url}/`);
    const env = page.locator('[data-testid="otlp-env"]');
    await env.waitFor();
    expect(await env.textContent()).toContain(`OTEL_EXPORTER_OTLP_ENDPOINT=${dashboard.url}\n`);
    expect(await env.textContent()).toContain('OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf');
    expect(await page.textContent('[data-testid="otlp-snippet"]')).toContain('setupTelemetry(');
    expect(await env.locator('button').textContent()).toBe('copy');
    await shot('incident-empty.png');
  });

  it('feeds a resilient agent (breaker opens) and a naive agent (no breaker) on the same server', async () => {
    // the calls and their export in one 10 s bucket, whatever the machine's load: the agents run on a virtual
    // clock that moves only by the workload's own steps; the spans are dated by it, the metric points re-dated
    const start = workloadStart(Date.now(), storeCreated);
    dataBucket = start - (start % BUCKET_MS);
    const clock = createFakeClock(start);
    const resilientRun = resilient.run([...standardScript('weather'), ...down(4)], {
      clock,
      breakerConsecutiveFailures: 3,
      breakerBreakMs: 600_000,
      breakerMaxBreakMs: 600_000,
      maxAttempts: 1,
    });
    await driveClock(clock, resilientRun);
    await driveClock(clock, naive.run([...standardScript('weather'), ...down(6)], { clock, maxAttempts: 3 }));
    expect(clock.now() - start).toBeLessThan(WORKLOAD_MS);
    // nothing dated in the dashboard's future
    await wallClockPast(clock.now());
    await exportAgent(resilient, clock, start);
    await exportAgent(naive, clock, start, true);
    // at once: the summary lists a breaker stored since the counts by state were taken (the empty page before)
    const summary = await (await fetch(`${dashboard.url}/api/v1/summary`)).json();
    expect(summary.breakers.find((b: { server: string }) => b.server === 'down')?.state).toBe('open');
  });

  it('/breakers: no hydration error, only processes with breakers, in-state and entered agree', async () => {
    errors.length = 0;
    await openPage(page, `${dashboard.url}/breakers?range=15m`);
    const tile = page.locator('[data-testid="breaker-tile"][data-server="down"]');
    await tile.waitFor();
    await page.waitForSelector('[data-testid="live-status"].on');
    // the hydration over (every boundary; what React recovered from is reported by then), not a fixed wait
    await waitForReactIdle(page);
    expect(errors.filter((e) => /418|hydrat/i.test(e))).toEqual([]);
    expect(await tile.getAttribute('data-state')).toBe('open');
    // one process reports this breaker: the naive agent is not a "closed instance" of it
    expect(await tile.locator('[data-testid="breaker-instances"]').textContent()).toBe('1 instance');
    expect(await tile.locator('[data-testid="breaker-error"]').textContent()).toContain('100%');
    const text = (await tile.textContent()) ?? '';
    const inState = /in state (.+?)error/.exec(text)?.[1]?.trim();
    const entered = /Closed → Open \(.*?\) (.+?) ago/.exec(text)?.[1]?.trim();
    expect(inState).toBeDefined();
    expect(entered).toBe(inState);
    await shot('incident-breakers.png');
  });

  it('overview: legends, "now" beside the range, latency percentiles, transition marks, partial bucket', async () => {
    await openPage(page, `${dashboard.url}/?range=1h`);
    await page.waitForSelector('[data-testid="efficiency-chart"] .recharts-legend-item');
    for (const chart of ['efficiency-chart', 'calls-chart', 'error-chart']) {
      expect(
        await page.locator(`[data-testid="${chart}"] .recharts-legend-item`).count(),
        chart,
      ).toBeGreaterThan(0);
    }
    expect(await page.textContent('[data-testid="card-calls"]')).toMatch(/now \(5 min\)[\s\S]*last 1h:/);
    // the range rate is over the time that has data (seconds here), not over the hour
    const range = Number(
      (await page.textContent('[data-testid="calls-per-minute-range"]'))!.replace(/,/g, ''),
    );
    expect(range).toBeGreaterThan(60);
    const rows = page.locator('[data-testid="latency-row"]');
    expect(await rows.count()).toBeGreaterThanOrEqual(2);
    expect(await page.textContent('[data-testid="latency-table"]')).toMatch(/p95[\s\S]*down/);
    // the breaker transition is marked on every time chart
    for (const chart of ['efficiency-chart', 'calls-chart', 'error-chart']) {
      expect(
        await page.locator(`[data-testid="${chart}"] .annotation-transition`).count(),
        chart,
      ).toBeGreaterThan(0);
    }
    // the still-filling bucket is marked
    expect(await page.getAttribute('[data-testid="calls-chart"]', 'data-partial-from')).not.toBe('');
    expect(await page.locator('[data-testid="calls-chart"] .partial-bucket').count()).toBe(1);
    // class and type from the same rows: the type table names the class each type was given
    expect(await page.textContent('[data-testid="errors-by-type"]')).toMatch(/unavailable\s*retryable/);
    await shot('incident-overview.png');
  });

  it('compare mode: services side by side on the same axes', async () => {
    await openPage(page, `${dashboard.url}/?range=1h&compare=service`);
    await page.waitForSelector('[data-testid="compare-table"]');
    const keys = await page
      .locator('[data-testid="compare-row"]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')));
    expect(keys.sort()).toEqual(['naive-agent', 'resilient-agent']);
    const chart = page.locator('[data-testid="compare-calls"]');
    // attached, not visible: when every call is in the still-filling bucket, the solid lines are flat at zero (an
    // empty box) and the data is the dashed segment alone
    await chart.locator('.recharts-line:not(.partial-line)').first().waitFor({ state: 'attached' });
    // one solid line per group, and its still-filling bucket drawn apart (dashed)
    expect(await chart.locator('.recharts-line:not(.partial-line)').count()).toBe(2);
    expect(await chart.locator('.recharts-legend-item').count()).toBe(2);
    await shot('incident-compare.png');
    // a click on one line's point opens the calls of that group only
    const plot = chart.locator('.recharts-wrapper > svg');
    const b = (await plot.boundingBox())!;
    let dot = chart.locator('.recharts-active-dot circle, circle.recharts-dot.recharts-active-dot');
    for (let x = b.x + b.width - 12; x > b.x + 40 && (await dot.count()) === 0; x -= 4) {
      await page.mouse.move(x, b.y + b.height / 2);
      dot = chart.locator('.recharts-active-dot circle, circle.recharts-dot.recharts-active-dot');
    }
    expect(await dot.count()).toBeGreaterThan(0);
    const box = (await dot.first().boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForURL(/\/calls\?/);
    expect(['naive-agent', 'resilient-agent']).toContain(new URL(page.url()).searchParams.get('service'));
  });

  it('a click on a chart point opens the matching calls; a drag zooms to a custom range', async () => {
    await openPage(page, `${dashboard.url}/?range=15m`);
    const plot = page.locator('[data-testid="calls-chart"] .recharts-wrapper > svg');
    await plot.waitFor();
    const box = (await plot.boundingBox())!;
    // drag from 20% to 60% of the width
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width * 0.2, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.4, y, { steps: 4 });
    await page.mouse.move(box.x + box.width * 0.6, y, { steps: 4 });
    await page.mouse.up();
    await page.waitForURL(/from=\d+&to=\d+/);
    const zoomed = new URL(page.url());
    const from = Number(zoomed.searchParams.get('from'));
    const to = Number(zoomed.searchParams.get('to'));
    expect(to - from).toBeGreaterThan(0);
    expect(to - from).toBeLessThan(15 * 60_000);
    await page.waitForSelector('[data-testid="custom-range"] button.active');
    // a click (no drag) on the bucket with the data: the Calls page for that bucket, failed calls
    await openPage(page, `${dashboard.url}/?range=15m`);
    await plot.waitFor();
    const b = (await plot.boundingBox())!;
    const y0 = b.y + b.height / 2;
    const label = fmtTime(dataBucket);
    let found = false;
    for (let x = b.x + b.width - 20; x > b.x + 40 && !found; x -= 3) {
      await page.mouse.move(x, y0);
      const text = await page.locator('[data-testid="calls-chart"] .recharts-tooltip-label').textContent();
      if (text?.startsWith(label)) {
        found = true;
        await page.mouse.down();
        await page.mouse.up();
      }
    }
    expect(found, `a chart point at ${label}`).toBe(true);
    await page.waitForURL(/\/calls\?/);
    const url = new URL(page.url());
    expect(url.searchParams.get('only')).toBe('failed');
    expect(Number(url.searchParams.get('from'))).toBe(dataBucket);
    expect(Number(url.searchParams.get('to'))).toBe(dataBucket + 10_000);
    await page.waitForSelector('[data-testid="calls-filters"]');
    const services = await page.locator('[data-testid="call-service"]').allTextContents();
    expect(services.length).toBeGreaterThan(0);
    expect(new Set(services)).toEqual(new Set(['naive-agent', 'resilient-agent']));
    await shot('incident-calls.png');
  });
});
