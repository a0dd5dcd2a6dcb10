import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryRecorder, runCanary } from '../test/support/canary-workload';
import { createCapture, serialize } from '../test/support/otel';
import { ARTIFACTS, type Dashboard, launchChromium, openPage, startDashboard } from './support';

/*
 * The Experiments page in real Chromium, against the built dashboard fed a canary (two variants and a shadow
 * classifier, through the real middleware and OTel SDK) over its OTLP endpoint. Screenshot:
 * artifacts/experiments.png.
 */

let dashboard: Dashboard;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  dashboard = await startDashboard();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const agent = createCapture({ 'service.name': 'canary-agent', 'service.instance.id': 'canary-1' });
  await runCanary(canaryRecorder(agent.recorder).recorder, 800);
  for (const [signal, body] of [
    ['traces', serialize.tracesProto(agent.spans())],
    ['metrics', serialize.metricsProto(await agent.metrics())],
  ] as const) {
    const r = await fetch(`${dashboard.url}/v1/${signal}`, {
      method: 'POST',
      body: body as BodyInit,
      headers: { 'content-type': 'application/x-protobuf' },
    });
    expect(r.status).toBe(200);
  }
});

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

describe('Experiments page in Chromium', () => {
  it('shows the verdict, the variants with intervals, and the shadow matrix with example calls', async () => {
    await openPage(page, `${dashboard.url}/?range=1h`);
    await page.getByRole('link', { name: 'Experiments' }).click();
    await page.waitForURL(/\/experiments\?range=1h/);
    const verdict = page.locator('[data-testid="experiment-verdicts"] [data-verdict]');
    await expect.poll(() => verdict.getAttribute('data-verdict')).toBe('better');
    expect(await verdict.textContent()).toMatch(
      /candidate is better than control: retry efficiency \+\d+\.\d pts/,
    );
    const rows = page.locator('[data-testid="experiment-variants"] tbody tr');
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-variant')))).toEqual([
      'control',
      'candidate',
    ]);
    expect(await rows.first().locator('.badge').textContent()).toBe('baseline');
    // The share of calls that ran, and of draws (no negative cache here: the same), beside the split's 70%.
    expect(await rows.first().locator('[data-testid="variant-share"]').textContent()).toMatch(
      /^(6\d|7\d)\.\d% \(drawn (6\d|7\d)\.\d%\)$/,
    );
    expect(await rows.first().locator('td').nth(3).textContent()).toMatch(/^\d+\.\d% \[\d+\.\d%–\d+\.\d%\]$/);
    const offDiagonal = page.locator('[data-cell="retryable>non_retryable"]');
    expect(Number(await offDiagonal.textContent())).toBeGreaterThan(0);
    expect(await page.locator('[data-cell="non_retryable>retryable"]').textContent()).toBe('0');
    await page.screenshot({ path: path.join(ARTIFACTS, 'experiments.png'), fullPage: true });

    // An example call opens the Calls page on that call.
    const example = page.locator('[data-testid="shadow-example"]').first();
    const href = await example.getAttribute('href');
    expect(href).toMatch(
      /^\/calls\?range=1h&from=\d+&to=\d+&server=weather&tool=get_forecast&variant=control#call-[0-9a-f]{16}$/,
    );
    await example.click();
    await page.waitForURL(/\/calls\?/);
    const id = href!.split('#')[1]!;
    // the URL changes before the Calls page has rendered: wait for the row itself (poll's 1 s is too short under load)
    await page.locator(`[id="${id}"]`).waitFor();
    expect(await page.locator(`[id="${id}"]`).count()).toBe(1);
    // The Calls page applies the variant: every row is the control's, and says so.
    const variants = await page.locator('[data-testid="call-variant"]').allTextContents();
    expect(variants.length).toBe(await page.locator('[data-testid="call-row"]').count());
    expect(new Set(variants)).toEqual(new Set(['control']));
    await page.screenshot({ path: path.join(ARTIFACTS, 'experiments-calls.png') });
  });

  it('says how to start a canary when there is none in the window', async () => {
    await openPage(page, `${dashboard.url}/experiments?range=1h&server=nobody`);
    expect(await page.locator('[data-testid="experiments-empty"]').textContent()).toContain('variants');
  });
});
