import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMetrics, demoTraces } from './demo-data';
import { ARTIFACTS, type Dashboard, launchChromium, openPage, startDashboard } from './support';

/* Documentation screenshots from a synthetic hour of telemetry (artifacts/docs-*.png). */

let dashboard: Dashboard;
let browser: Browser;

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  dashboard = await startDashboard();
});

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

const send = async (signal: 'traces' | 'metrics', body: unknown) => {
  const r = await fetch(`${dashboard.url}/v1/${signal}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  expect(r.status).toBe(200);
  expect(await r.text()).toBe('{}');
};

describe('documentation screenshots', () => {
  it('renders every page from an hour of synthetic telemetry', async () => {
    const now = Date.now();
    await send('traces', demoTraces(now));
    for (const request of demoMetrics(now)) await send('metrics', request);
    const summary = await (await fetch(`${dashboard.url}/api/v1/summary`)).json();
    expect(summary.calls.total).toBeGreaterThan(1000);
    expect(summary.breakers.map((b: { state: string }) => b.state).sort()).toEqual([
      'closed',
      'half_open',
      'open',
    ]);
    // the naive agent (no breaker) is not counted as a breaker instance
    const tiles = await (await fetch(`${dashboard.url}/api/v1/summary`)).json();
    expect(tiles.breakers).toHaveLength(3);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    for (const [route, name] of [
      ['/?range=1h', 'docs-overview.png'],
      ['/?range=1h&compare=service', 'docs-compare.png'],
      ['/breakers?range=1h', 'docs-breakers.png'],
      ['/errors?range=1h', 'docs-errors.png'],
      ['/calls?range=1h', 'docs-calls.png'],
    ] as const) {
      await openPage(page, `${dashboard.url}${route}`);
      await page.waitForSelector('[data-testid="live-status"].on');
      if (route.startsWith('/calls')) await page.locator('[data-testid="call-row"] summary').first().click();
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });
      if (route.startsWith('/breakers')) {
        const tickets = page.locator('[data-testid="breaker-tile"][data-server="tickets"]');
        // the two support-agent processes; the naive agent (no breaker) is not a "closed instance"
        expect(await tickets.locator('[data-testid="breaker-instances"]').textContent()).toBe('Open 2');
        expect(await tickets.locator('[data-testid="breaker-waiting"]').textContent()).toBe('6 waiting');
      }
      if (route.includes('compare=service')) {
        // per group, beside the failure share: successful calls per minute, requests per success, failed time
        const rows = page.locator('[data-testid="compare-row"]');
        expect(await rows.count()).toBeGreaterThanOrEqual(2);
        for (const row of await rows.all()) {
          expect(await row.locator('[data-testid="compare-failed"]').textContent()).toMatch(
            /\d+ \(\d+\.\d%\)/,
          );
          expect(await row.locator('[data-testid="compare-successes-per-minute"]').textContent()).toMatch(
            /^\d/,
          );
          expect(await row.locator('[data-testid="compare-requests-per-success"]').textContent()).toMatch(
            /^\d/,
          );
          expect(await row.locator('[data-testid="compare-failed-time"]').textContent()).toMatch(/s|ms/);
        }
      }
      if (route === '/?range=1h') {
        expect(Number(await page.textContent('[data-testid="model-retries-avoided"]'))).toBeGreaterThan(0);
        expect(await page.textContent('[data-testid="model-retries-saved"]')).toContain('cost saved');
        expect(await page.locator('[data-testid="latency-row"]').count()).toBeGreaterThanOrEqual(3);
      }
    }
    await page.close();
  });
});
