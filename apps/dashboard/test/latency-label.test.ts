import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { parseCallsQuery } from '@/lib/data/query-params';
import type { TimeQuery } from '@/lib/data/types';
import { createIngestSink } from '@/lib/ingest/ingest-sink';
import { decodeMetrics, decodeTraces } from '@/lib/otlp/decode';
import CallList from '@/ui/calls/call-list';
import { latencyLabel } from '@/ui/overview/latency-label';
import LatencyTable from '@/ui/overview/latency-table';
import { createCapture, serialize } from './support/otel';
import { nanos } from './support/otlp-json';
import { findThenListTwice, searchCaller } from './support/search-calls';
import { tempStore } from './support/temp-store';

/*
 * A latency row of calls without a tool (another method than tools/call, or a plain `execute`) was labelled by
 * its server alone, so it read as the server's total (a plain `execute` has its operation as method, 'call'). Rows are now grouped by method too and each is named:
 * the tool, else the method, else "(no tool)". Fed by the middleware's own recorder through the real OTel SDK
 * and OTLP protobuf into the embedded store.
 */

const q = (): TimeQuery => ({ from: Date.now() - 600_000, to: Date.now() + 60_000, filters: {} });

async function latencyRows() {
  const { store, source } = tempStore();
  const agent = createCapture();
  const call = searchCaller(agent.recorder, 'success');
  await findThenListTwice(call);
  await call(); // a plain `execute`: its operation, 'call', is the method
  // an exporter that gives neither a method nor a tool
  const foreign = agent.meter.createHistogram('mcp.resilience.call.duration', { unit: 's' });
  foreign.record(0.2, { 'mcp.resilience.server': 'search', 'mcp.resilience.outcome': 'success' });
  createIngestSink(store).metrics(decodeMetrics(serialize.metricsProto(await agent.metrics()), 'protobuf'));
  return source.latency(q());
}

describe('latency rows without a tool', () => {
  it('are grouped by method and each named: the tool, else the method, else "(no tool)"', async () => {
    const rows = await latencyRows();
    expect(rows.map((r) => [r.server, r.tool, r.method, r.calls])).toEqual([
      ['search', '', '', 1],
      ['search', '', 'call', 1],
      ['search', '', 'tools/list', 2],
      ['search', 'find', '', 1],
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

  it('link a row of neither tool nor method to exactly its calls; the Calls list names each call so', async () => {
    // failed calls (the Calls page keeps those): find (tools/call), tools/list twice, and a foreign exporter's
    // call span that names neither a tool nor a method
    const { store, source } = tempStore();
    const agent = createCapture();
    await findThenListTwice(searchCaller(agent.recorder, 'failure'));
    const sink = createIngestSink(store);
    sink.metrics(decodeMetrics(serialize.metricsProto(await agent.metrics()), 'protobuf'));
    sink.traces(decodeTraces(serialize.tracesProto(agent.spans()), 'protobuf'));
    const t = Date.now() - 1_000;
    const s = (key: string, v: string) => ({ key, value: { stringValue: v } });
    const foreign = {
      resourceSpans: [
        {
          resource: { attributes: [s('service.name', 'foreign')] },
          scopeSpans: [
            {
              scope: { name: 'foreign' },
              spans: [
                {
                  traceId: 'ab'.repeat(16),
                  spanId: 'cd'.repeat(8),
                  name: 'mcp.resilience.call',
                  kind: 1,
                  startTimeUnixNano: nanos(t),
                  endTimeUnixNano: nanos(t + 5),
                  attributes: [
                    s('mcp.resilience.server', 'search'),
                    s('mcp.resilience.outcome', 'failure'),
                    { key: 'mcp.resilience.attempts', value: { intValue: 1 } },
                  ],
                  status: { code: 2 },
                },
              ],
            },
          ],
        },
      ],
    };
    sink.traces(decodeTraces(Buffer.from(JSON.stringify(foreign)), 'json'));
    // the table's row of neither (the foreign histogram of the first test) links to the calls of neither
    const html = renderToStaticMarkup(
      createElement(LatencyTable, {
        rows: [{ server: 'search', tool: '', method: '', calls: 1, p50: 0.2, p95: 0.2, p99: 0.2 }],
        query: 'range=15m',
      }),
    );
    const href = /href="([^"]+)"/.exec(html)![1]!.replaceAll('&amp;', '&');
    const sp = Object.fromEntries(new URL(href, 'http://x').searchParams);
    expect(sp).toMatchObject({ server: 'search', without: 'tool,method' });
    const query = parseCallsQuery(sp, Date.now());
    expect(query.filters).toMatchObject({ server: 'search', tool: '', method: '' });
    const neither = await source.recentCalls(query, { limit: 10 });
    expect(neither.map((c) => [c.service, c.tool, c.method])).toEqual([['foreign', '', '']]);
    // the Calls list names every call as the latency table does: never the server alone
    const all = await source.recentCalls(q(), { limit: 10 });
    const list = renderToStaticMarkup(createElement(CallList, { calls: all }));
    const texts = [
      ...list.matchAll(/data-testid="call-target"[^>]*>(.*?)<\/span><span><span class="badge/g),
    ].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
    expect(texts.sort()).toEqual([
      'search / (no tool)',
      'search / find',
      'search / tools/list (no tool)',
      'search / tools/list (no tool)',
    ]);
  });
});
