import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCapture, serialize } from '../test/support/otel';
import { findThenListTwice, searchCaller } from '../test/support/search-calls';
import { type Dashboard, startDashboard } from './support';

/*
 * The overview's latency table, as the built server renders it, names every row: calls without a tool (a
 * `tools/list`, a plain `execute`) by their method, never by their server alone as if they were its total,
 * and links such a row to exactly its calls (the Calls page filtered by server and method). Fed over OTLP/HTTP
 * protobuf by the middleware's recorder on the real OTel SDK.
 */

let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await startDashboard();
  const agent = createCapture();
  // one attempt each, failing: the Calls page stores failed calls (a first-try success is not kept)
  await findThenListTwice(searchCaller(agent.recorder, 'failure'));
  for (const [path, body] of [
    ['/v1/metrics', serialize.metricsProto(await agent.metrics())],
    ['/v1/traces', serialize.tracesProto(agent.spans())],
  ] as const) {
    const r = await fetch(`${dashboard.url}${path}`, {
      method: 'POST',
      body: body as BodyInit,
      headers: { 'content-type': 'application/x-protobuf' },
    });
    expect(r.status, path).toBe(200);
  }
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

  it("links a row without a tool to exactly its method's calls", async () => {
    const html = await (await fetch(`${dashboard.url}/?range=15m`)).text();
    const href = (kind: string) =>
      new RegExp(`<tr data-testid="latency-row"[^>]*data-label-kind="${kind}"[^>]*>.*?<a [^>]*href="([^"]+)"`)
        .exec(html)?.[1]
        ?.replaceAll('&amp;', '&');
    const list = new URL(href('method')!, dashboard.url);
    expect(list.pathname).toBe('/calls');
    expect(Object.fromEntries(list.searchParams)).toMatchObject({ server: 'search', method: 'tools/list' });
    expect(list.searchParams.has('tool')).toBe(false);
    const shown = async (url: URL) => {
      const page = await (await fetch(url)).text();
      return {
        rows: [...page.matchAll(/data-testid="call-row"/g)].length,
        // what each call was: the tool, else the method (never the server alone)
        targets: [...page.matchAll(/data-testid="call-target"[^>]*>(.*?)<\/span><span>/g)].map((m) =>
          m[1]!.replace(/<[^>]+>/g, ''),
        ),
        filters: /data-testid="calls-filters"[^>]*>(.*?)<\/p>/.exec(page)?.[1]?.replace(/<[^>]+>/g, ''),
      };
    };
    // the two tools/list calls, not the tools/call one; the filter is named (and removable)
    const listed = await shown(list);
    expect(listed.rows).toBe(2);
    expect(listed.filters).toContain('method tools/list');
    expect(listed.targets).toEqual(['search / tools/list (no tool)', 'search / tools/list (no tool)']);
    const find = new URL(href('tool')!, dashboard.url);
    expect(find.searchParams.get('tool')).toBe('find');
    expect((await shown(find)).rows).toBe(1);
    expect((await shown(find)).targets).toEqual(['search / find']);
  });
});
