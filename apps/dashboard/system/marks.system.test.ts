import fs from 'node:fs';
import path from 'node:path';
import {
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_SERVER,
  METRIC_MCP_RESILIENCE_CALLS,
  METRIC_MCP_RESILIENCE_RETRIES,
} from '@mcp-resilience/middleware/semconv';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { breakerGaugeRequest } from '../test/support/breaker-gauges';
import { type JsonPoint, sumRequest } from '../test/support/otlp-json';
import { ARTIFACTS, type Dashboard, launchChromium, openPage, startDashboard } from './support';

/*
 * Issue #22, truth at a glance, what stop 27 left: in real Chromium against the built dashboard, with a fresh
 * agent (4 minutes of data) whose breaker flaps up to now and whose retry-efficiency alert fires:
 * - no mark (its glyph or its line) covers the "partial" or the "target 0.8" label, and no glyph another;
 * - the charts start at the first data on the default 1h range (named: "Data since …"), not at the range's
 *   start with the data squeezed against the right edge;
 * - the alert's summary names the span its value covers ("over 4m (data since …)", not "over 60m"), and the
 *   Alerts page names which value is now and which is the one at the change.
 */

const MIN = 60_000;
let dashboard: Dashboard;
let browser: Browser;
let page: Page;
let t0 = 0;

async function send(path_: string, body: unknown, method = 'POST') {
  const r = await fetch(`${dashboard.url}${path_}`, {
    method,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  expect(r.status, path_).toBe(200);
}

/** One 10 s delta point per outcome of a metric, every 10 s from `from` to t0: 4 failures to 1 success. */
function deltas(metric: string, from: number, perPoint: number) {
  const points: JsonPoint[] = [];
  const a = { [ATTR_MCP_RESILIENCE_SERVER]: 'tickets', [ATTR_MCP_METHOD_NAME]: 'tools/call' };
  for (let at = from; at < t0; at += 10_000) {
    for (const [outcome, n] of [
      ['failure', perPoint * 4],
      ['success', perPoint],
    ] as const) {
      points.push({
        timeMs: at,
        startMs: at - 10_000,
        asInt: n,
        attributes: { ...a, [ATTR_MCP_RESILIENCE_OUTCOME]: outcome },
      });
    }
  }
  return sumRequest(metric, points, { temporality: 1, service: 'fresh-agent' });
}

async function seed() {
  await send('/v1/metrics', deltas(METRIC_MCP_RESILIENCE_CALLS, t0 - 4 * MIN, 20));
  await send('/v1/metrics', deltas(METRIC_MCP_RESILIENCE_RETRIES, t0 - 4 * MIN, 2));
  // the breaker flaps every 4 s over the last 2 minutes, the newest transitions in the still-filling bucket
  const states = ['open', 'half_open', 'closed'] as const;
  for (let i = 0, at = t0 - 2 * MIN; at < t0; i++, at += 4_000) {
    const request = breakerGaugeRequest([{ server: 'tickets', tool: '', state: states[i % 3]! }], at, {
      service: 'fresh-agent',
      instance: 'fresh-1',
    });
    await send('/v1/metrics', request);
  }
  // the alert fires at its first evaluation (marked on every chart, at now)
  await send('/api/alerts/rules/retry-efficiency', { forMs: 0 }, 'PUT');
}

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  t0 = Date.now();
  dashboard = await startDashboard({ ALERT_EVAL_INTERVAL_MS: '500' });
  await seed();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });

interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly what: string;
}

/** Boxes (page pixels) of the elements of `locator`, named by `what` and their text. */
async function boxes(locator: Locator, what: string): Promise<Rect[]> {
  const out: Rect[] = [];
  for (const el of await locator.all()) {
    const b = await el.boundingBox();
    if (b)
      out.push({
        ...b,
        what: `${what} "${((await el.textContent()) ?? '').slice(0, 20)}" at ${Math.round(b.x)}`,
      });
  }
  return out;
}

/** Overlap of more than half a pixel both ways; a vertical line's box (0 wide) counts as 1 px wide. */
const overlaps = (a: Rect, b: Rect) => {
  const w = (r: Rect) => Math.max(r.width, 1);
  const h = (r: Rect) => Math.max(r.height, 1);
  const ox = Math.min(a.x + w(a), b.x + w(b)) - Math.max(a.x, b.x);
  const oy = Math.min(a.y + h(a), b.y + h(b)) - Math.max(a.y, b.y);
  return ox > 0.5 && oy > 0.5;
};

/** The chart's labels (by their text, wherever drawn) and its marks: glyphs (● ⚑, with a count) and lines. */
async function chartParts(chart: Locator) {
  const labels = await boxes(
    chart.locator('svg text').filter({ hasText: /^(partial|target 0\.8)$/ }),
    'label',
  );
  const glyphs = await boxes(chart.locator('svg text').filter({ hasText: /^[●⚑]\d*$/ }), 'glyph');
  const lines = await boxes(chart.locator('.annotation line, line.annotation'), 'mark line');
  return { labels, glyphs, lines };
}

describe('marks and labels at a glance (issue #22)', () => {
  it('draws no mark over the "partial" and "target 0.8" labels, and no mark glyph over another', async () => {
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await openPage(page, `${dashboard.url}/?range=1h`);
    const charts = ['efficiency-chart', 'calls-chart', 'error-chart'];
    for (const id of charts) {
      const chart = page.locator(`[data-testid="${id}"]`);
      await chart.locator('.annotation-alert').first().waitFor({ state: 'attached' });
      const { labels, glyphs, lines } = await chartParts(chart);
      expect(labels.map((l) => l.what.split('"')[1]).sort(), id).toEqual(
        id === 'efficiency-chart' ? ['partial', 'target 0.8'] : ['partial'],
      );
      expect(lines.length, id).toBeGreaterThan(5);
      expect(glyphs.length, id).toBeGreaterThan(0);
      const clashes: string[] = [];
      for (const l of labels) {
        for (const m of [...glyphs, ...lines]) if (overlaps(l, m)) clashes.push(`${l.what} × ${m.what}`);
      }
      for (const [i, g] of glyphs.entries()) {
        for (const h of glyphs.slice(i + 1)) if (overlaps(g, h)) clashes.push(`${g.what} × ${h.what}`);
      }
      expect(clashes, id).toEqual([]);
    }
    // every transition is still counted: the glyphs' counts add up to the marks' counts
    const chart = page.locator('[data-testid="calls-chart"]');
    const sum = async (sel: string) =>
      (
        await chart.locator(sel).evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-count'))))
      ).reduce((s, n) => s + n, 0);
    expect(await sum('.mark-glyph')).toBe(await sum('.annotation'));
    // the overlay renders the same on the server and in the browser (no hydration error)
    expect(errors).toEqual([]);
    await shot('marks-lane.png');
  });

  it('starts the charts at the first data on the default 1h range, and says so', async () => {
    await openPage(page, `${dashboard.url}/`);
    const since = page.locator('[data-testid="charts-data-since"]');
    await since.waitFor();
    expect(await since.textContent()).toMatch(/^Data since \d\d:\d\d:\d\d: the charts start there/);
    const start = Number(await since.getAttribute('data-start'));
    // the first data's bucket, not the hour's start
    expect(start).toBeGreaterThan(t0 - 4 * MIN - 60_000);
    expect(start).toBeLessThanOrEqual(t0 - 4 * MIN);
    for (const id of ['calls-chart', 'efficiency-chart', 'error-chart']) {
      expect(Number(await page.locator(`[data-testid="${id}"]`).getAttribute('data-start')), id).toBe(start);
    }
    // the calls drawn span most of the plot's width, from its left edge (not the right edge of an empty hour)
    const chart = page.locator('[data-testid="calls-chart"]');
    const axis = (await chart.locator('.recharts-xAxis .recharts-cartesian-axis-line').boundingBox())!;
    const area = (await chart.locator('.recharts-area-area').first().boundingBox())!;
    expect(area.x - axis.x).toBeLessThan(axis.width * 0.1);
    expect(area.width).toBeGreaterThan(axis.width * 0.5);
    await shot('marks-data-since.png');
  });

  it('names the span an alert value covers, and which value is now and which at the change', async () => {
    await openPage(page, `${dashboard.url}/alerts`);
    const row = page
      .locator('[data-testid="alert-instances"] tbody tr')
      .filter({ hasText: 'RetryEfficiencyBelowTarget' });
    await row.first().waitFor();
    const summary = (await row.first().textContent()) ?? '';
    // 4 minutes of retries (a few seconds more by now): not "over 60m"
    // (both windows read the same 4 minutes: one value, not the same twice)
    const span = /is 20% over (\d+)m \(data since \d\d:\d\d UTC; \d+ retries; target 80%\)/.exec(summary);
    expect(span, summary).not.toBeNull();
    expect([4, 5]).toContain(Number(span![1]));
    expect(summary).not.toContain('over 60m');
    expect(summary).toMatch(/\(as of \d\d:\d\d:\d\d/);
    const headers = await page.locator('[data-testid="alert-instances"] th').allTextContents();
    expect(headers).toContain('value now');
    const history = page.locator('[data-testid="alert-history"]');
    expect(await history.locator('th').allTextContents()).toEqual(
      expect.arrayContaining(['value at the change', 'summary at the change']),
    );
    // each history row's value is the one its own summary names
    for (const tr of await history.locator('tbody tr').all()) {
      const value = Number.parseFloat(
        (await tr.locator('[data-testid="history-value"]').textContent()) ?? '',
      );
      const said = /is ([\d.]+)% over/.exec((await tr.textContent()) ?? '')?.[1];
      expect(Number(said)).toBeCloseTo(value, 1);
    }
    await shot('marks-alerts.png');
  });
});
