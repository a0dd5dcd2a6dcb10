import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, launchChromium, openPage, startDashboard } from './support';

/*
 * The "Add target" server action in real Chromium against the built dashboard: a webhook that would make the
 * server POST into the machine or its network (SSRF) is refused with the reason, unless
 * ALERT_TARGET_ALLOWED_NETWORKS allows its range; a refused URL is never stored.
 */

let browser: Browser;
const dashboards: Dashboard[] = [];
let hook: http.Server;

beforeAll(async () => {
  browser = await launchChromium();
  hook = http.createServer((_req, res) => res.end());
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
});

afterAll(async () => {
  await browser?.close();
  for (const d of dashboards) await d.stop();
  await new Promise((r) => hook?.close(r));
});

const MSG = 'form:has(input[name="url"]) .msg';

/** Submits the form and returns the action's message (waiting for a new one: each case's message differs). */
async function addTarget(page: Page, url: string): Promise<string> {
  const before = (await page.locator(MSG).count()) > 0 ? await page.locator(MSG).textContent() : null;
  await page.fill('input[name="name"]', 'ops');
  await page.fill('input[name="url"]', url);
  await page.click('button:has-text("Add target")');
  await page.waitForFunction(
    ([selector, previous]) => {
      const text = document.querySelector(selector as string)?.textContent ?? null;
      return text !== null && text !== previous;
    },
    [MSG, before] as const,
  );
  return (await page.locator(MSG).textContent()) ?? '';
}

describe('alert targets in Chromium', () => {
  it('refuses metadata, loopback (hex form) and private webhooks; stores none of them', async () => {
    const d = await startDashboard();
    dashboards.push(d);
    const page = await browser.newPage();
    await openPage(page, `${d.url}/alerts`);
    expect(await addTarget(page, 'http://169.254.169.254/latest/meta-data/')).toMatch(
      /169\.254\.169\.254 is a link-local \(cloud metadata\) address/,
    );
    expect(await addTarget(page, 'http://0x7f000001:9/hook')).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(await addTarget(page, 'http://[fd00:ec2::254]/')).toMatch(/unique-local/);
    expect(await addTarget(page, 'http://10.0.0.8/hook')).toMatch(/ALERT_TARGET_ALLOWED_NETWORKS/);
    await page.reload();
    expect(await page.content()).not.toContain('169.254.169.254');
    await page.close();
  });

  it('accepts a loopback webhook that ALERT_TARGET_ALLOWED_NETWORKS allows', async () => {
    const d = await startDashboard({ ALERT_TARGET_ALLOWED_NETWORKS: '127.0.0.1/32' });
    dashboards.push(d);
    const page = await browser.newPage();
    await openPage(page, `${d.url}/alerts`);
    const port = (hook.address() as AddressInfo).port;
    expect(await addTarget(page, `http://127.0.0.1:${port}/hook`)).toMatch(/Target ops .* added/);
    await page.close();
  });
});
