import { createResilience } from '@mcp-resilience/middleware';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedSource } from '@/lib/data/embedded-source';
import type { TimeQuery } from '@/lib/data/types';
import { createIngestSink } from '@/lib/ingest/ingest-sink';
import { decodeMetrics } from '@/lib/otlp/decode';
import { EmbeddedStore } from '@/lib/store/embedded-store';
import { latencyLabel } from '@/ui/overview/latency-label';
import LatencyTable from '@/ui/overview/latency-table';
import { createCapture, serialize } from './support/otel';
import { tempDir } from './support/runtime';

/*
 * A latency row of calls without a tool (another method than tools/call, or a plain `execute`) was labelled by
 * its server alone, so it read as the server's total (a plain `execute` has its operation as method, 'call'). Rows are now grouped by method too and each is named:
 * the tool, else the method, else "(no tool)". Fed by the middleware's own recorder through the real OTel SDK
 * and OTLP protobuf into the embedded store.
 */

const stores: EmbeddedStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

const q = (): TimeQuery => ({ from: Date.now() - 600_000, to: Date.now() + 60_000, filters: {} });

async function latencyRows() {
  const store = new EmbeddedStore({
    dataDir: tempDir(),
    retentionMs: 86_400_000,
    maxCalls: 100,
    maxAttempts: 100,
  });
  stores.push(store);
  const agent = createCapture();
  const resilience = createResilience({ recorder: agent.recorder });
  const run = (attributes: Record<string, string>) =>
    resilience.execute(async () => 'ok', {
      endpoint: 'search',
      attributes: { 'mcp.resilience.server': 'search', ...attributes },
    });
  await run({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'find' });
  await run({ 'mcp.method.name': 'tools/list' });
  await run({ 'mcp.method.name': 'tools/list' });
  await run({}); // a plain `execute`: its operation, 'call', is the method
  // an exporter that gives neither a method nor a tool
  const foreign = agent.meter.createHistogram('mcp.resilience.call.duration', { unit: 's' });
  foreign.record(0.2, { 'mcp.resilience.server': 'search', 'mcp.resilience.outcome': 'success' });
  createIngestSink(store).metrics(decodeMetrics(serialize.metricsProto(await agent.metrics()), 'protobuf'));
  return new EmbeddedSource(store, { staleMs: 600_000 }).latency(q());
}

describe('latency rows without a tool', () => {
  it('are grouped by method and each named: the tool, else the method, else "(no tool)"', async () => {
    const rows = await latencyRows();
    expect(rows.map((r) => [r.server, r.tool, r.method, r.calls])).toEqual([
      ['search', '', '', 1],
      ['search', '', 'call', 1],
      ['search', '', 'tools/list', 2],
      ['search', 'find', 'tools/call', 1],
    ]);
    expect(rows.map((r) => latencyLabel(r).text)).toEqual([
      '(no tool)',
      'call (no tool)',
      'tools/list (no tool)',
      'find',
    ]);
    expect(rows.map((r) => latencyLabel(r).kind)).toEqual(['none', 'method', 'method', 'tool']);
  });

  it('render with their label in the overview table, none of them empty', async () => {
    const html = renderToStaticMarkup(
      createElement(LatencyTable, { rows: await latencyRows(), query: 'range=15m' }),
    );
    const cells = [
      ...html.matchAll(
        /<tr data-testid="latency-row"[^>]*data-label-kind="(\w+)"[^>]*><td><a [^>]*>(.*?)<\/a>/g,
      ),
    ];
    expect(cells.map((m) => [m[1], m[2]?.replace(/<[^>]+>/g, '')])).toEqual([
      ['none', 'search / (no tool)'],
      ['method', 'search / call (no tool)'],
      ['method', 'search / tools/list (no tool)'],
      ['tool', 'search / find'],
    ]);
    expect(html).toContain('title="search: tools/list calls, which name no tool"');
  });
});
