import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_SERVER,
  ATTR_MCP_RESILIENCE_VARIANT,
  METRIC_MCP_RESILIENCE_CALLS,
  METRIC_MCP_RESILIENCE_RETRIES,
  PROM_LABEL_MCP_RESILIENCE_SERVER,
} from '@mcp-resilience/middleware/semconv';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { breakerGaugeRequest, type GaugeBreaker } from '../test/support/breaker-gauges';
import { type JsonPoint, sumRequest } from '../test/support/otlp-json';
import { ARTIFACTS, type Dashboard, launchChromium, openPage, startDashboard } from './support';

/*
 * Issue #22 item 7, what the first round left: in real Chromium against the built dashboard, a breaker whose
 * process exited ends on the timeline at its last report ("No data (gone)" after, not "Closed" up to now); the
 * Experiments page gives per-server verdicts and says "Servers differ" when a server's verdict is not the pooled
 * one, and the canary banner links to it filtered to its server; the retry-efficiency line stops where the
 * retries stop (no value repeated for 5 minutes); the still-filling bucket of the calls chart is drawn at the
 * steady rate when one export just landed in it (not that export over the seconds since the bucket began).
 */

const MIN = 60_000;
let dataDir: string;
let dashboard: Dashboard;
let browser: Browser;
let page: Page;
let t0 = 0;

async function post(path_: string, body: unknown) {
  const r = await fetch(`${dashboard.url}${path_}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  expect(r.status, path_).toBe(200);
}

/** Delta counts of one service's calls or retries, each point over the 10 s before it. */
const counts = (
  metric: string,
  service: string,
  points: ReadonlyArray<[number, Record<string, string>, number]>,
) =>
  sumRequest(
    metric,
    points.map(
      ([timeMs, attributes, n]): JsonPoint => ({ timeMs, startMs: timeMs - 10_000, asInt: n, attributes }),
    ),
    { temporality: 1, service },
  );

/** A canary on two servers: worse on `tickets` (the alert's server), a bit better on the busier `search`. */
function canaryCalls(at: number) {
  const split: Array<[string, string, number, number]> = [
    ['tickets', 'control', 900, 890],
    ['tickets', 'candidate', 120, 100],
    ['search', 'control', 9000, 8700],
    ['search', 'candidate', 1000, 985],
  ];
  return counts(
    METRIC_MCP_RESILIENCE_CALLS,
    'canary',
    split.flatMap(([server, variant, calls, ok]) => {
      const a = { [ATTR_MCP_RESILIENCE_SERVER]: server, [ATTR_MCP_METHOD_NAME]: 'tools/call' };
      return [
        [at, { ...a, [ATTR_MCP_RESILIENCE_VARIANT]: variant, [ATTR_MCP_RESILIENCE_OUTCOME]: 'success' }, ok],
        [
          at,
          { ...a, [ATTR_MCP_RESILIENCE_VARIANT]: variant, [ATTR_MCP_RESILIENCE_OUTCOME]: 'failure' },
          calls - ok,
        ],
      ] as Array<[number, Record<string, string>, number]>;
    }),
  );
}

/** The steady agent's 30 s exports: 60 calls each (120/min), each a delta over the 30 s before it. */
const STEADY_EVERY = 30_000;
/** Where the custom range of the filling-bucket check ends: 6 s into a 30 s bucket, 1 s after an export. */
let steadyTo = 0;

async function seedSteady() {
  const bucket = Math.floor((t0 - 3 * MIN) / STEADY_EVERY) * STEADY_EVERY;
  steadyTo = bucket + 6_000;
  const ok = { [ATTR_MCP_RESILIENCE_SERVER]: 'weather', [ATTR_MCP_RESILIENCE_OUTCOME]: 'success' };
  for (let at = bucket + 1_000 - 40 * STEADY_EVERY; at < t0; at += STEADY_EVERY) {
    const point: JsonPoint = { timeMs: at, startMs: at - STEADY_EVERY, asInt: 60, attributes: ok };
    await post(
      '/v1/metrics',
      sumRequest(METRIC_MCP_RESILIENCE_CALLS, [point], { temporality: 1, service: 'steady' }),
    );
  }
}

async function seed() {
  await seedSteady();
  // a breaker of an agent that exited 12 minutes ago (closed, open, closed), and one still reporting
  const exited = async (state: GaugeBreaker['state'], at: number) =>
    post(
      '/v1/metrics',
      breakerGaugeRequest([{ server: 'exited', tool: '', state }], at, {
        service: 'gone-agent',
        instance: 'gone-1',
      }),
    );
  await exited('closed', t0 - 20 * MIN);
  await exited('open', t0 - 16 * MIN);
  await exited('closed', t0 - 14 * MIN);
  await exited('closed', t0 - 12 * MIN);
  await post(
    '/v1/metrics',
    breakerGaugeRequest([{ server: 'alive', tool: '', state: 'closed' }], t0 - 1000, {
      service: 'live-agent',
      instance: 'live-1',
    }),
  );
  await post('/v1/metrics', canaryCalls(t0 - 5 * MIN));
  // 30 retries in one 10 s bucket 10 minutes ago, then none
  const r = { [ATTR_MCP_RESILIENCE_SERVER]: 'weather', [ATTR_MCP_METHOD_NAME]: 'tools/call' };
  await post(
    '/v1/metrics',
    counts(METRIC_MCP_RESILIENCE_RETRIES, 'eff-agent', [
      [t0 - 10 * MIN, { ...r, [ATTR_MCP_RESILIENCE_OUTCOME]: 'success' }, 25],
      [t0 - 10 * MIN, { ...r, [ATTR_MCP_RESILIENCE_OUTCOME]: 'failure' }, 5],
    ]),
  );
}

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-glance-'));
  browser = await launchChromium();
  t0 = Date.now();
  dashboard = await startDashboard({ DATA_DIR: dataDir });
  await seed();
  await dashboard.stop();
  // The exited agent's last report was 12 minutes ago: the store's receipt times say so (the test cannot wait
  // GONE_AFTER_MS of wall clock), as they would after a restart of a dashboard that ran all along.
  const db = new Database(path.join(dataDir, 'dashboard.db'));
  db.prepare("UPDATE breakers SET updated = ? WHERE instance = 'gone-1'").run(t0 - 12 * MIN);
  db.prepare("UPDATE instances SET first_seen = ?, last_seen = ? WHERE instance = 'gone-1'").run(
    t0 - 20 * MIN,
    t0 - 12 * MIN,
  );
  // the steady agent ran for the 20 minutes its exports cover (it was first seen then, not at the seeding)
  db.prepare("UPDATE instances SET first_seen = ? WHERE service = 'steady'").run(t0 - 20 * MIN);
  db.close();
  dashboard = await startDashboard({ DATA_DIR: dataDir });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });

describe('truth at a glance, the rest (issue #22 item 7)', () => {
  it('ends a breaker whose process exited at its last report: "No data (gone)" after, not Closed up to now', async () => {
    const before = Date.now();
    await openPage(page, `${dashboard.url}/breakers?range=1h`);
    const after = Date.now();
    const row = (server: string) =>
      page
        .locator('[data-testid="breaker-timeline"] .timeline-row')
        .filter({ has: page.locator(`svg[aria-label="${server} state timeline"]`) });
    const gone = row('exited').locator('rect.timeline-gone');
    await gone.waitFor();
    expect(await gone.locator('title').textContent()).toBe('No data (gone) since its last report');
    // the last report, 12 minutes before t0, in an hour ending at the render
    const at = (now: number) => ((t0 - 12 * MIN - (now - 60 * MIN)) / (60 * MIN)) * 100;
    const x = Number(await gone.getAttribute('x'));
    expect(x).toBeGreaterThan(at(after) - 0.2);
    expect(x).toBeLessThan(at(before) + 0.2);
    expect(x + Number(await gone.getAttribute('width'))).toBeCloseTo(100, 5);
    // its states: closed, open, closed, all before the last report
    const states = row('exited').locator('rect:not(.timeline-gone)');
    const titles = await states.locator('title').allTextContents();
    expect(titles.map((t) => t.split(' for ')[0])).toEqual(['Closed', 'Open', 'Closed']);
    const last = states.last();
    expect(Number(await last.getAttribute('x')) + Number(await last.getAttribute('width'))).toBeCloseTo(x, 5);
    // a breaker still reporting runs to now, with no gap
    expect(await row('alive').locator('rect.timeline-gone').count()).toBe(0);
    expect(await page.locator('[data-testid="breaker-timeline"] .legend').textContent()).toContain(
      'No data (gone)',
    );
    await shot('glance-gone-timeline.png');
  });

  it('gives per-server verdicts and says "Servers differ" where the pooled verdict hides a worse server', async () => {
    await openPage(page, `${dashboard.url}/experiments?range=1h`);
    const pooled = page.locator('[data-testid="experiment-verdicts"] [data-verdict]');
    expect(await pooled.getAttribute('data-verdict')).not.toBe('worse');
    const differ = page.locator('[data-testid="servers-differ"]');
    expect(await differ.count()).toBe(1);
    expect(await differ.textContent()).toMatch(/worse on tickets/);
    const cell = (server: string) =>
      page.locator(`[data-testid="server-verdicts"] tr[data-server="${server}"] td[data-verdict]`);
    expect(await cell('tickets').getAttribute('data-verdict')).toBe('worse');
    expect(await cell('search').getAttribute('data-verdict')).toBe('better');
    await shot('glance-server-verdicts.png');
    // the server's link: the page filtered to it gives the server's verdict, and no per-server table
    await Promise.all([
      page.waitForURL(/server=tickets/),
      page.locator('[data-testid="servers-differ"] a', { hasText: 'tickets' }).click(),
    ]);
    await page.waitForFunction(() => !document.querySelector('div[hidden][id^="S:"], template[id^="B:"]'));
    await expect.poll(() => pooled.getAttribute('data-verdict')).toBe('worse');
    expect(await page.locator('[data-testid="server-verdicts"]').count()).toBe(0);
  });

  it('links the canary banner to Experiments filtered to its server', async () => {
    await post('/api/alerts/webhook', {
      version: '4',
      status: 'firing',
      alerts: [
        {
          status: 'firing',
          labels: { alertname: 'CanaryWorseThanControl', [PROM_LABEL_MCP_RESILIENCE_SERVER]: 'tickets' },
          annotations: { summary: 'Canary candidate is worse than control on tickets' },
          startsAt: new Date(t0 - MIN).toISOString(),
        },
      ],
    });
    await openPage(page, `${dashboard.url}/?range=6h`);
    const link = page.locator('[data-testid="banner-experiments"]');
    expect(await link.getAttribute('href')).toBe('/experiments?range=1h&server=tickets');
    await Promise.all([page.waitForURL(/\/experiments\?range=1h&server=tickets/), link.click()]);
    await page.waitForFunction(() => !document.querySelector('div[hidden][id^="S:"], template[id^="B:"]'));
    const verdict = page.locator('[data-testid="experiment-verdicts"] [data-verdict]');
    await expect.poll(() => verdict.getAttribute('data-verdict')).toBe('worse');
  });

  it('stops the retry-efficiency line where the retries stop: a bucket with no retry is a gap', async () => {
    await openPage(page, `${dashboard.url}/?range=15m&service=eff-agent`);
    const chart = page.locator('[data-testid="efficiency-chart"]');
    await chart.locator('.recharts-bar').first().waitFor({ state: 'attached' });
    // one bucket holds the 30 retries: one point, not that value again for the 5 minutes after
    expect(await chart.getAttribute('data-points')).toBe('1');
    await shot('glance-efficiency-gap.png');
  });

  it('widens the 15m chart to the 30 s export interval and says so: no 0, 0, then 3x sawtooth', async () => {
    // 10 s buckets would hold one 30 s export in three: 0, 0, then 360/min against 120/min steady
    await openPage(page, `${dashboard.url}/?range=15m&service=steady`);
    const note = page.locator('[data-testid="charts-bucket-note"]');
    await note.waitFor();
    expect(await note.textContent()).toContain('30 s buckets: the data is exported every 30 s');
    expect(await note.getAttribute('data-step')).toBe('30000');
    const chart = page.locator('[data-testid="calls-chart"]');
    const tick = chart.locator('.recharts-yAxis-tick-labels text');
    await tick.first().waitFor({ state: 'attached' });
    const ticks = (await tick.allTextContents())
      .map((t) => Number(t.replace(/,/g, '')))
      .filter(Number.isFinite);
    expect(Math.max(...ticks)).toBeGreaterThanOrEqual(120);
    expect(Math.max(...ticks)).toBeLessThan(200);
    await shot('glance-export-interval.png');
  });

  it('draws the still-filling bucket at the steady rate: one 30 s export 6 s into it is no spike', async () => {
    // a custom hour that ends 6 s into a 30 s bucket holding one export (60 calls, over the 30 s before it):
    // divided by the 6 s since the bucket began it would read 600/min against 120/min steady
    await openPage(page, `${dashboard.url}/?from=${steadyTo - 60 * MIN}&to=${steadyTo}&service=steady`);
    const chart = page.locator('[data-testid="calls-chart"]');
    await chart.locator('.partial-area').first().waitFor({ state: 'attached' });
    expect(await chart.getAttribute('data-partial-from')).toBe(String(steadyTo - 6_000));
    const tick = chart.locator('.recharts-yAxis-tick-labels text');
    await tick.first().waitFor({ state: 'attached' });
    const ticks = (await tick.allTextContents())
      .map((t) => Number(t.replace(/,/g, '')))
      .filter(Number.isFinite);
    expect(ticks.length).toBeGreaterThan(1);
    // the axis ends near 120 (the steady rate and the filling bucket's), far below 600
    expect(Math.max(...ticks)).toBeGreaterThanOrEqual(120);
    expect(Math.max(...ticks)).toBeLessThan(200);
    await shot('glance-filling-bucket.png');
  });
});
