import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { breakerGaugeRequest, type GaugeBreaker } from '../test/support/breaker-gauges';
import { createCapture, serialize } from '../test/support/otel';
import { standardScript } from '../test/support/workload';
import { ARTIFACTS, type Dashboard, launchChromium, openPage, startDashboard } from './support';

/*
 * Issue #22's truth fixes and bounded pages in real Chromium against the built dashboard: the Breakers page
 * pages and filters, every transition of the range is marked (aggregated when dense), the still-filling bucket
 * is drawn apart, the custom-range inputs show the preset, no breaker state before its first data, one figure
 * convention on the cards, and /favicon.ico is served.
 */

let dashboard: Dashboard;
let browser: Browser;
let page: Page;
const notFound: string[] = [];
const MIN = 60_000;
let t0 = 0;

async function postJson(signal: 'metrics' | 'traces', body: unknown) {
  const r = await fetch(`${dashboard.url}/v1/${signal}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  expect(r.status).toBe(200);
}

const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  dashboard = await startDashboard();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('response', (r) => {
    if (r.status() === 404) notFound.push(r.url());
  });
  t0 = Date.now();
  // a fleet of 60 per-tool breakers (closed), reported now
  const fleet: GaugeBreaker[] = Array.from({ length: 60 }, (_, i) => ({
    server: 'fleet',
    tool: `tool-${String(i).padStart(4, '0')}`,
    state: 'closed',
  }));
  await postJson('metrics', breakerGaugeRequest(fleet, t0 - 1000, { instance: 'fleet-1' }));
  // an outage of `tickets` 50 minutes ago, then `flappy` changing state every 10 s for 20 minutes (120 changes)
  const flip = async (server: string, state: GaugeBreaker['state'], at: number) =>
    postJson('metrics', breakerGaugeRequest([{ server, tool: '', state }], at, { instance: `${server}-1` }));
  await flip('tickets', 'closed', t0 - 52 * MIN);
  await flip('tickets', 'open', t0 - 50 * MIN);
  await flip('tickets', 'closed', t0 - 48 * MIN);
  for (let i = 0; i <= 120; i++) await flip('flappy', i % 2 ? 'open' : 'closed', t0 - 25 * MIN + i * 10_000);
  // calls, for the charts and their still-filling bucket
  const agent = createCapture({ 'service.name': 'agent', 'service.instance.id': 'a-1' });
  await agent.run([...standardScript('weather'), ...standardScript('search')]);
  const r = await fetch(`${dashboard.url}/v1/metrics`, {
    method: 'POST',
    body: serialize.metricsProto(await agent.metrics()) as BodyInit,
    headers: { 'content-type': 'application/x-protobuf' },
  });
  expect(r.status).toBe(200);
});

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

describe('truth at a glance (issue #22)', () => {
  it('serves /favicon.ico; no page asks for anything that is not there', async () => {
    const r = await fetch(`${dashboard.url}/favicon.ico`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/image\//);
    await openPage(page, `${dashboard.url}/breakers`);
    await page.waitForSelector('[data-testid="breaker-pager"]');
    expect(notFound).toEqual([]);
  });

  it('the Breakers page shows one page, says how many more, and filters', async () => {
    await openPage(page, `${dashboard.url}/breakers?range=1h`);
    expect(await page.locator('[data-testid="breaker-tile"]').count()).toBe(48);
    // 60 fleet breakers + tickets + flappy + the agent's weather and search
    expect(await page.textContent('[data-testid="breaker-more"]')).toBe('16 more');
    expect(await page.textContent('[data-testid="breaker-filter-all"]')).toBe('all 64');
    expect(await page.locator('[data-testid="breaker-timeline"] .timeline-row svg').count()).toBe(48);
    await shot('truth-breakers-page.png');
    await page.fill('input[name="match"]', 'TOOL-005');
    await Promise.all([page.waitForURL(/match=TOOL-005/), page.click('.pager-form button[type="submit"]')]);
    await page.waitForSelector('[data-testid="breaker-shown"]');
    const tools = await page.locator('[data-testid="breaker-tile"] .name .muted').allTextContents();
    expect(tools.map((t) => t.replace(/^ \/ /, '')).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `tool-005${i}`),
    );
    expect(await page.locator('[data-testid="breaker-more"]').count()).toBe(0);
    await openPage(page, `${dashboard.url}/breakers?range=1h&page=2`);
    expect(await page.locator('[data-testid="breaker-tile"]').count()).toBe(16);
  });

  it('marks every transition of the range on the charts, the early outage included, dense ones counted', async () => {
    await openPage(page, `${dashboard.url}/?range=1h`);
    const marks = page.locator('[data-testid="calls-chart"] .annotation-transition');
    await marks.first().waitFor({ state: 'attached' });
    const titles = await page
      .locator('[data-testid="calls-chart"] .annotation-transition title')
      .allTextContents();
    expect(titles).toContain('tickets → open');
    expect(titles).toContain('tickets → closed');
    const counted = titles
      .map((t) => /^(\d+) transitions → /.exec(t)?.[1])
      .filter((n) => n !== undefined)
      .map(Number);
    const singles = titles.filter((t) => t.startsWith('flappy → ')).length;
    expect(counted.reduce((s, n) => s + n, 0) + singles).toBe(120);
    expect(counted.length).toBeGreaterThan(0);
    await shot('truth-marks.png');
  });

  it('draws the still-filling bucket apart (dashed), not as part of the solid areas', async () => {
    await openPage(page, `${dashboard.url}/?range=15m`);
    const chart = page.locator('[data-testid="calls-chart"]');
    // attached, not visible: an area of a series that is all zeros (rejected calls, say) has an empty box
    await chart.locator('.recharts-area').first().waitFor({ state: 'attached' });
    expect(await chart.getAttribute('data-partial-from')).not.toBe('');
    const dashed = chart.locator('.partial-area .recharts-area-curve');
    expect(await dashed.count()).toBeGreaterThan(0);
    expect(await dashed.first().getAttribute('stroke-dasharray')).toBe('4 3');
    await shot('truth-partial.png');
  });

  it('draws the still-filling bucket apart (dashed) in compare mode too, each group ending solid before it', async () => {
    // fresh calls, so the still-filling bucket has some when the page renders
    const agent = createCapture({ 'service.name': 'agent', 'service.instance.id': 'a-2' });
    await agent.run(standardScript('weather'));
    const r = await fetch(`${dashboard.url}/v1/metrics`, {
      method: 'POST',
      body: serialize.metricsProto(await agent.metrics()) as BodyInit,
      headers: { 'content-type': 'application/x-protobuf' },
    });
    expect(r.status).toBe(200);
    await openPage(page, `${dashboard.url}/?range=15m&compare=service`);
    const chart = page.locator('[data-testid="compare-calls"]');
    await chart.locator('.recharts-line').first().waitFor({ state: 'attached' });
    const groups = (await chart.getAttribute('data-groups'))!.split(',');
    const solid = chart.locator('.recharts-line:not(.partial-line) .recharts-line-curve');
    const dashed = chart.locator('.partial-line .recharts-line-curve');
    expect(await solid.count()).toBe(groups.length);
    expect(await dashed.count()).toBe(groups.length);
    for (const d of await dashed.all()) expect(await d.getAttribute('stroke-dasharray')).toBe('4 3');
    // the solid lines stop before the still-filling bucket (shaded): that bucket is only ever dashed
    const filling = (await chart.locator('.partial-bucket').first().boundingBox())!;
    for (const line of await solid.all()) {
      const box = await line.boundingBox();
      if (box) expect(box.x + box.width).toBeLessThanOrEqual(filling.x + 1);
    }
    await shot('truth-compare-partial.png');
  });

  it('the custom-range inputs show the preset in effect, and apply waits for an edit', async () => {
    for (const [range, ms] of [
      ['15m', 15 * MIN],
      ['6h', 6 * 60 * MIN],
    ] as const) {
      await openPage(page, `${dashboard.url}/?range=${range}`);
      const form = page.locator('[data-testid="custom-range"]');
      await page.waitForFunction(() => {
        const i = document.querySelector<HTMLInputElement>(
          '[data-testid="custom-range"] input[aria-label="from"]',
        );
        return i !== null && i.value !== '';
      });
      const from = new Date(await form.locator('input[aria-label="from"]').inputValue()).getTime();
      const to = new Date(await form.locator('input[aria-label="to"]').inputValue()).getTime();
      expect(Math.abs(to - from - ms), range).toBeLessThanOrEqual(MIN);
      expect(await form.locator('button[type="submit"]').isDisabled()).toBe(true);
    }
  });

  it('paints no breaker state before the breaker was first seen', async () => {
    await openPage(page, `${dashboard.url}/breakers?range=1h&match=fleet/tool-0000`);
    const rect = page.locator('[data-testid="breaker-timeline"] .timeline-row svg rect').first();
    await rect.waitFor();
    // first seen a few seconds ago: its band starts at the right end of the hour, not at its start
    expect(Number(await rect.getAttribute('x'))).toBeGreaterThan(90);
    const before = Date.now();
    await openPage(page, `${dashboard.url}/breakers?range=1h&match=tickets`);
    const after = Date.now();
    const first = page.locator('[data-testid="breaker-timeline"] .timeline-row svg rect').first();
    await first.waitFor();
    // its first data kept: the transition at t0 - 50 minutes (the first report, closed, is not kept apart), so
    // its band starts about 10 minutes into the hour before the render
    const at = (now: number) => ((t0 - 50 * MIN - (now - 60 * MIN)) / (60 * MIN)) * 100;
    const x = Number(await first.getAttribute('x'));
    expect(x).toBeGreaterThan(at(after) - 0.2);
    expect(x).toBeLessThan(at(before) + 0.2);
  });

  it('cards: the big figure is "now" on every card, the range labelled once below it', async () => {
    await openPage(page, `${dashboard.url}/?range=1h`);
    await page.waitForSelector('[data-testid="card-model-retries"]');
    const cards = await page.locator('.grid.cards .card .label').allTextContents();
    for (const label of cards) expect(label, label).toMatch(/· now/);
    const text = (await page.textContent('.grid.cards')) ?? '';
    expect(text).not.toMatch(/range \(/);
    expect(text).toMatch(/last 1h:/);
    expect(text).toMatch(/summed across calls/);
    await shot('truth-cards.png');
  });
});
