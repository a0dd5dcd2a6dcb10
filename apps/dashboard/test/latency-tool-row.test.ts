import { createResilience } from '@mcp-resilience/middleware';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedSource } from '@/lib/data/embedded-source';
import { parseCallsQuery } from '@/lib/data/query-params';
import type { TimeQuery } from '@/lib/data/types';
import { createIngestSink } from '@/lib/ingest/ingest-sink';
import { decodeMetrics, decodeTraces } from '@/lib/otlp/decode';
import { EmbeddedStore } from '@/lib/store/embedded-store';
import LatencyTable from '@/ui/overview/latency-table';
import { createCapture, serialize } from './support/otel';
import { nanos } from './support/otlp-json';
import { tempDir } from './support/runtime';

/*
 * Issue #22: a foreign exporter that sends a tool call without `mcp.method.name` (only `gen_ai.tool.name`) got
 * a second latency row for the same tool, beside the middleware's `tools/call` one, and both rows linked to
 * all the tool's calls. One tool is one row, holding every call of the tool, and its link lists exactly those.
 * The middleware's recorder on the real OTel SDK and a hand-made foreign export, over OTLP, into the embedded
 * store (the Prometheus backend: `system/latency-tool-row.system.test.ts`).
 */

const stores: EmbeddedStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

const q = (): TimeQuery => ({ from: Date.now() - 600_000, to: Date.now() + 60_000, filters: {} });
const str = (key: string, v: string) => ({ key, value: { stringValue: v } });

/** A foreign exporter's failed call span of tool `find` that names no method. */
function foreignSpan(t: number) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [str('service.name', 'foreign')] },
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
                  str('mcp.resilience.server', 'search'),
                  str('gen_ai.tool.name', 'find'),
                  str('mcp.resilience.outcome', 'failure'),
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
}

async function source(): Promise<EmbeddedSource> {
  const store = new EmbeddedStore({
    dataDir: tempDir(),
    retentionMs: 86_400_000,
    maxCalls: 100,
    maxAttempts: 100,
  });
  stores.push(store);
  const agent = createCapture();
  const resilience = createResilience({ recorder: agent.recorder, maxAttempts: 1 });
  const run = (attributes: Record<string, string>) =>
    resilience
      .execute(
        async () => {
          throw new Error('search is down');
        },
        { endpoint: 'search', attributes: { 'mcp.resilience.server': 'search', ...attributes } },
      )
      .catch(() => undefined);
  await run({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'find' });
  await run({ 'mcp.method.name': 'tools/list' });
  // the foreign exporter's duration of a `find` call, without a method
  const foreign = agent.meter.createHistogram('mcp.resilience.call.duration', { unit: 's' });
  foreign.record(0.2, {
    'mcp.resilience.server': 'search',
    'gen_ai.tool.name': 'find',
    'mcp.resilience.outcome': 'failure',
  });
  const sink = createIngestSink(store);
  sink.metrics(decodeMetrics(serialize.metricsProto(await agent.metrics()), 'protobuf'));
  sink.traces(decodeTraces(serialize.tracesProto(agent.spans()), 'protobuf'));
  sink.traces(decodeTraces(Buffer.from(JSON.stringify(foreignSpan(Date.now() - 1_000))), 'json'));
  return new EmbeddedSource(store, { staleMs: 600_000 });
}

describe('a tool whose calls name a method or none (a foreign exporter)', () => {
  it('is one latency row holding all its calls', async () => {
    const rows = await (await source()).latency(q());
    expect(rows.map((r) => [r.server, r.tool, r.method, r.calls])).toEqual([
      ['search', '', 'tools/list', 1],
      ['search', 'find', '', 2],
    ]);
  });

  it("links to exactly the tool's calls, the foreign one included", async () => {
    const s = await source();
    const html = renderToStaticMarkup(
      createElement(LatencyTable, { rows: await s.latency(q()), query: 'range=15m' }),
    );
    const links = [...html.matchAll(/data-label-kind="tool"[^>]*><td><a [^>]*href="([^"]+)"/g)].map((m) =>
      m[1]!.replaceAll('&amp;', '&'),
    );
    expect(links).toHaveLength(1);
    const sp = Object.fromEntries(new URL(links[0]!, 'http://x').searchParams);
    expect(sp).toMatchObject({ server: 'search', tool: 'find' });
    expect(sp).not.toHaveProperty('method');
    const calls = await s.recentCalls(parseCallsQuery(sp, Date.now()), { limit: 10 });
    expect(calls.map((c) => [c.service, c.tool, c.method]).sort()).toEqual([
      ['foreign', 'find', ''],
      [expect.any(String), 'find', 'tools/call'],
    ]);
  });
});
