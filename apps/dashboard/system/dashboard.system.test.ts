import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCapture, serialize } from '../test/support/otel';
import { type ScriptedCall, standardScript } from '../test/support/workload';
import { ARTIFACTS, type Dashboard, launchChromium, openPage, startDashboard } from './support';

/*
 * Browser tests in real Chromium (Debian's /usr/bin/chromium driven by playwright-core) against the built
 * dashboard fed through its real OTLP endpoint. Screenshots go to artifacts/.
 */

let dashboard: Dashboard;
let browser: Browser;
let page: Page;
const agent = createCapture({ 'service.name': 'demo-agent', 'service.instance.id': 'demo-1' });

async function exportAll() {
  const metrics = serialize.metricsProto(await agent.metrics());
  const traces = serialize.tracesProto(agent.spans());
  agent.resetSpans();
  for (const [signal, body] of [
    ['traces', traces],
    ['metrics', metrics],
  ] as const) {
    const r = await fetch(`${dashboard.url}/v1/${signal}`, {
      method: 'POST',
      body: body as BodyInit,
      headers: { 'content-type': 'application/x-protobuf' },
    });
    expect(r.status).toBe(200);
  }
}

const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  dashboard = await startDashboard({ ALERT_EVAL_INTERVAL_MS: '500' });
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
});

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

const flaky = (n: number): ScriptedCall[] =>
  Array.from({ length: n }, () => ({ server: 'flaky', tool: 'ping', steps: [503] }));

describe('dashboard in Chromium', () => {
  it('overview shows the fixture numbers and the 0.8 target line', async () => {
    // 2 × the standard script: 50 calls, 28 retries of which 16 succeeded (57.1%), 8 non-retryable failures
    await agent.run([...standardScript('weather'), ...standardScript('weather')]);
    await exportAll();
    expect(agent.truth.retries).toEqual({ total: 28, successful: 16 });
    await openPage(page, `${dashboard.url}/?range=1h`);
    await page.waitForSelector('[data-testid="efficiency-value"]');
    expect(await page.textContent('[data-testid="efficiency-value"]')).toBe('57.1%');
    expect(await page.textContent('[data-testid="efficiency-ratio"]')).toContain('16/28');
    expect(await page.textContent('[data-testid="calls-total"]')).toContain('50 calls');
    expect(await page.textContent('[data-testid="wasted-retries"]')).toBe('12');
    const line = page.locator('[data-testid="efficiency-chart"] line.target-line');
    await line.waitFor({ state: 'attached' });
    const width = await line.evaluate((el) => (el as SVGGraphicsElement).getBBox().width);
    expect(width).toBeGreaterThan(100);
    expect(await page.textContent('[data-testid="efficiency-chart"]')).toContain('target 0.8');
    expect(await page.getAttribute('[data-testid="efficiency-chart"]', 'data-target')).toBe('0.8');
    expect(await page.textContent('[data-testid="errors-by-type"]')).toContain('invalid_request');
    await page.waitForSelector('[data-testid="live-status"].on');
    await shot('overview.png');
  });

  it('a breaker tile turns open without a reload after an open transition is ingested', async () => {
    // A healthy call first: the breaker of 'flaky' reports closed.
    await agent.run([{ server: 'flaky', tool: 'ping', steps: ['ok'] }], {
      breakerConsecutiveFailures: 3,
      maxAttempts: 1,
    });
    await exportAll();
    await openPage(page, `${dashboard.url}/breakers?range=15m`);
    const tile = page.locator('[data-testid="breaker-tile"][data-server="flaky"]');
    await tile.waitFor();
    expect(await tile.getAttribute('data-state')).toBe('closed');
    await page.evaluate(() => {
      (window as unknown as { __noReload: boolean }).__noReload = true;
    });
    // Failures open the breaker; only the trace (with the transition event) is sent.
    await agent.run(flaky(4), { breakerConsecutiveFailures: 3, maxAttempts: 1, breakerBreakMs: 120_000 });
    const traces = serialize.tracesProto(agent.spans());
    agent.resetSpans();
    const r = await fetch(`${dashboard.url}/v1/traces`, {
      method: 'POST',
      body: traces as BodyInit,
      headers: { 'content-type': 'application/x-protobuf' },
    });
    expect(r.status).toBe(200);
    // the push itself is waited for (how fast it comes is the bench's business): the backstop only ends a hang
    await page.waitForSelector('[data-testid="breaker-tile"][data-server="flaky"][data-state="open"]', {
      timeout: 60_000,
    });
    expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
    // the live refresh then brings the tile's last transition and the timeline, still without a reload
    await page.waitForSelector('[data-testid="breaker-tile"][data-server="flaky"] >> text=/Closed → Open/', {
      timeout: 60_000,
    });
    await shot('breakers.png');
  });

  it('the alert banner appears on every page when efficiency stays below target', async () => {
    await openPage(page, `${dashboard.url}/?range=1h`);
    expect(await page.locator('[data-testid="alert-banner"]').count()).toBe(0);
    const put = await fetch(`${dashboard.url}/api/alerts/rules/retry-efficiency`, {
      method: 'PUT',
      body: JSON.stringify({ forMs: 1000 }),
    });
    expect(put.status).toBe(200);
    await page.waitForSelector('[data-testid="alert-banner"]', { timeout: 60_000 });
    expect(await page.textContent('[data-testid="alert-banner"]')).toContain('weather');
    await shot('alert-banner.png');
    // the alert is marked on every time chart of the overview
    await openPage(page, `${dashboard.url}/?range=1h`);
    for (const chart of ['efficiency-chart', 'calls-chart', 'error-chart']) {
      await page.locator(`[data-testid="${chart}"] .annotation-alert`).first().waitFor({ state: 'attached' });
    }
    await openPage(page, `${dashboard.url}/errors?range=1h`);
    await page.waitForSelector('[data-testid="alert-banner"]');
    await openPage(page, `${dashboard.url}/alerts`);
    expect(await page.textContent('[data-testid="alert-history"]')).toContain('firing');
    await shot('alerts.png');
  });

  it('the calls page shows the attempt waterfall', async () => {
    await openPage(page, `${dashboard.url}/calls?range=1h&only=failed`);
    const row = page.locator('[data-testid="call-row"]', { hasText: 'get_forecast' }).first();
    await row.waitFor();
    await row.locator('summary').click();
    await row.locator('[data-testid="attempt-row"]').first().waitFor();
    expect(await row.textContent()).toMatch(/retry|give_up/);
    await shot('calls.png');
  });
});
