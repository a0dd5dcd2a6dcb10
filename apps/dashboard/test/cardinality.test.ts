import { afterEach, describe, expect, it } from 'vitest';
import { sumRequest } from './support/otlp-json';
import { startTestServer, type TestServer } from './support/runtime';

/* The numbers: 20,000 tool names or 100,000 alerts must not make every answer megabytes. */

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const size = async (r: Response) => (await r.arrayBuffer()).byteLength;

describe('cardinality at scale', () => {
  it('20,000 tool names: 1,000 kept plus _OTHER, every count kept, answers stay small', async () => {
    const s = await startTestServer();
    servers.push(s);
    const t0 = Date.now();
    const points = Array.from({ length: 20_000 }, (_, i) => ({
      timeMs: t0,
      asInt: 1,
      attributes: {
        'mcp.resilience.server': 'weather',
        'mcp.resilience.outcome': 'failure',
        'mcp.resilience.error.type': 'x',
        'gen_ai.tool.name': `t${i}`,
      },
    }));
    const r = await fetch(`${s.url}/v1/metrics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sumRequest('mcp.resilience.calls', points, { temporality: 1 })),
    });
    expect(r.status).toBe(200);
    const dims = await s.runtime.source.dimensions({ from: 0, to: t0 + 60_000, filters: {} });
    expect(dims.tools).toHaveLength(1001);
    const summary = await fetch(`${s.url}/api/v1/summary?from=${t0 - 60_000}&to=${t0 + 60_000}`);
    const body = await summary.clone().json();
    expect(body.calls.total).toBe(20_000);
    expect(await size(summary)).toBeLessThan(20_000);
  });

  it('100,000 Alertmanager alerts: MAX_ALERT_INSTANCES kept, the alerts API stays small', async () => {
    const s = await startTestServer();
    servers.push(s);
    let dropped = 0;
    for (let batch = 0; batch < 100; batch++) {
      const alerts = Array.from({ length: 1000 }, (_, i) => ({
        status: 'firing',
        labels: { alertname: 'Noise', n: String(batch * 1000 + i) },
      }));
      const r = await fetch(`${s.url}/api/alerts/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ alerts }),
      });
      dropped += (await r.json()).dropped;
    }
    expect(dropped).toBe(99_000);
    expect(s.runtime.alertStore.firingCount()).toBe(1000);
    expect(s.runtime.alertStore.firing()).toHaveLength(100);
    const api = await fetch(`${s.url}/api/alerts`);
    expect(await size(api)).toBeLessThan(200_000);
  });
});
