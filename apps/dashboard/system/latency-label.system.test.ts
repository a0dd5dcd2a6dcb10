import { createResilience } from '@mcp-resilience/middleware';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCapture, serialize } from '../test/support/otel';
import { type Dashboard, startDashboard } from './support';

/*
 * The overview's latency table, as the built server renders it, names every row: calls without a tool (a
 * `tools/list`, a plain `execute`) by their method, never by their server alone as if they were its total.
 * Fed over OTLP/HTTP protobuf by the middleware's recorder on the real OTel SDK.
 */

let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await startDashboard();
  const agent = createCapture();
  const resilience = createResilience({ recorder: agent.recorder });
  const run = (attributes: Record<string, string>) =>
    resilience.execute(async () => 'ok', {
      endpoint: 'search',
      attributes: { 'mcp.resilience.server': 'search', ...attributes },
    });
  await run({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'find' });
  await run({ 'mcp.method.name': 'tools/list' });
  const r = await fetch(`${dashboard.url}/v1/metrics`, {
    method: 'POST',
    body: serialize.metricsProto(await agent.metrics()) as BodyInit,
    headers: { 'content-type': 'application/x-protobuf' },
  });
  expect(r.status).toBe(200);
});

afterAll(async () => {
  await dashboard?.stop();
});

describe('the overview latency table', () => {
  it('labels the rows of calls without a tool by their method', async () => {
    const html = await (await fetch(`${dashboard.url}/?range=15m`)).text();
    const rows = [
      ...html.matchAll(/<tr data-testid="latency-row"[^>]*data-label-kind="(\w+)"[^>]*>(.*?)<\/tr>/g),
    ];
    const labels = rows.map((m) => [
      m[1],
      /<a [^>]*>(.*?)<\/a>/.exec(m[2] ?? '')?.[1]?.replace(/<[^>]+>/g, ''),
    ]);
    expect(labels).toEqual([
      ['method', 'search / tools/list (no tool)'],
      ['tool', 'search / find'],
    ]);
  });
});
