import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_COUNT,
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_SUM,
  PROM_MCP_RESILIENCE_CALLS_TOTAL,
  PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
  PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS_TOTAL,
  PROM_MCP_RESILIENCE_ERRORS_TOTAL,
  PROM_MCP_RESILIENCE_MODEL_RETRIES_AVOIDED_TOTAL,
  PROM_MCP_RESILIENCE_MODEL_RETRIES_SAVED_COST_TOTAL,
  PROM_MCP_RESILIENCE_RETRIES_TOTAL,
  PROM_MCP_RESILIENCE_RETRY_WASTED_TIME_SECONDS_TOTAL,
} from '@mcp-resilience/middleware/semconv';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@/lib/config';
import type { MetricsSource } from '@/lib/data/metrics-source';
import {
  type InstantSample,
  type PrometheusApi,
  PrometheusClient,
  PrometheusError,
  type RangeSeries,
} from '@/lib/data/prometheus-client';
import { MAX_LOOKBACK_MS, PrometheusSource } from '@/lib/data/prometheus-source';
import * as promql from '@/lib/data/promql';
import type { BreakerSummary } from '@/lib/data/types';
import { type LiveEvent, LiveHub } from '@/lib/live/hub';
import { BreakerPoller } from '@/lib/live/poller';
import { SourceUnavailableError } from '@/lib/source-unavailable';
import { startTestServer, type TestServer } from './support/runtime';

// -------------------------------------------------------------------------------------------------------------
// a fake Prometheus HTTP API
// -------------------------------------------------------------------------------------------------------------

interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  params: URLSearchParams;
}

type Reply = { status?: number; body: unknown; contentType?: string; delayMs?: number };

const fakes: http.Server[] = [];
const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const f of fakes.splice(0)) {
    f.closeAllConnections();
    await new Promise((r) => f.close(r));
  }
});

async function fakePrometheus(answer: (req: Seen) => Reply) {
  const seen: Seen[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const params = new URLSearchParams(
      req.method === 'POST' ? Buffer.concat(chunks).toString('utf8') : url.searchParams.toString(),
    );
    const r: Seen = { method: req.method ?? '', path: url.pathname, headers: req.headers, params };
    seen.push(r);
    const reply = answer(r);
    if (reply.delayMs) await new Promise((x) => setTimeout(x, reply.delayMs));
    const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'application/json' });
    res.end(text);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fakes.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

const vector = (result: Array<{ metric: Record<string, string>; value: number }>) => ({
  status: 'success',
  data: {
    resultType: 'vector',
    result: result.map((r) => ({ metric: r.metric, value: [1, String(r.value)] })),
  },
});

// -------------------------------------------------------------------------------------------------------------

describe('configuration of DASHBOARD_SOURCE=prometheus', () => {
  const load = (env: Record<string, string>) => () => loadConfig({ DASHBOARD_SOURCE: 'prometheus', ...env });
  const failsNaming = (env: Record<string, string>, variable: string) => {
    try {
      load(env)();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variable).toBe(variable);
      expect((error as Error).message).toContain(variable);
      return;
    }
    throw new Error(`expected a ConfigError naming ${variable}`);
  };

  it('requires PROMETHEUS_URL, and checks it and the credentials', () => {
    failsNaming({}, 'PROMETHEUS_URL');
    failsNaming({ PROMETHEUS_URL: 'prometheus:9090' }, 'PROMETHEUS_URL');
    failsNaming({ PROMETHEUS_URL: 'ftp://prometheus' }, 'PROMETHEUS_URL');
    failsNaming({ PROMETHEUS_URL: 'http://p:9090/?x=1' }, 'PROMETHEUS_URL');
    failsNaming({ PROMETHEUS_URL: 'http://p:9090', PROMETHEUS_USER: 'u' }, 'PROMETHEUS_PASSWORD');
    failsNaming({ PROMETHEUS_URL: 'http://p:9090', PROMETHEUS_PASSWORD: 'p' }, 'PROMETHEUS_USER');
    failsNaming(
      {
        PROMETHEUS_URL: 'http://p:9090',
        PROMETHEUS_TOKEN: 't',
        PROMETHEUS_USER: 'u',
        PROMETHEUS_PASSWORD: 'p',
      },
      'PROMETHEUS_TOKEN',
    );
    failsNaming({ PROMETHEUS_URL: 'http://p:9090', PROMETHEUS_TIMEOUT_MS: 'soon' }, 'PROMETHEUS_TIMEOUT_MS');
    const c = load({ PROMETHEUS_URL: 'https://mimir.example.com/prometheus', PROMETHEUS_TOKEN: 't' })();
    expect(c.source).toBe('prometheus');
    expect(c.prometheus).toMatchObject({
      url: 'https://mimir.example.com/prometheus',
      token: 't',
      timeoutMs: 10_000,
      scrapeIntervalMs: 15_000,
      pollIntervalMs: 2_000,
    });
    expect(loadConfig({ PROMETHEUS_URL: 'http://p' }).prometheus).toBeUndefined();
  });
});

describe('PromQL builders', () => {
  it('use the contract names, the filters as labels, and escape values', () => {
    const f = { service: 'agent "x"', server: 'weather', tool: 'a.b' };
    expect(promql.selector(PROM_MCP_RESILIENCE_CALLS_TOTAL, f)).toBe(
      `${PROM_MCP_RESILIENCE_CALLS_TOTAL}{job="agent \\"x\\"", mcp_resilience_server="weather", gen_ai_tool_name="a.b"}`,
    );
    // breakers: a tool filter keeps per-server breakers (no tool label), and the value is a regex literal
    expect(
      promql.selector(PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE, { tool: 'a.b' }, {}, { breakerScope: true }),
    ).toBe(`${PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE}{gen_ai_tool_name=~"|a\\\\.b"}`);
    const w = { filters: {}, windowMs: 3_600_000, lookbackMs: 3_600_000 };
    const total = (metric: string, by: string[]) => promql.totalBy(metric, by, {}, w.windowMs, w.lookbackMs);
    const calls = total(PROM_MCP_RESILIENCE_CALLS_TOTAL, ['mcp_resilience_outcome']);
    const all = [
      calls,
      total(PROM_MCP_RESILIENCE_RETRIES_TOTAL, ['mcp_resilience_outcome']),
      total(PROM_MCP_RESILIENCE_ERRORS_TOTAL, ['mcp_resilience_error_type']),
      total(PROM_MCP_RESILIENCE_RETRY_WASTED_TIME_SECONDS_TOTAL, []),
      total(PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_SUM, []),
      total(PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_COUNT, []),
      promql.transitionCounts({}, 1000, 300_000),
      promql.breakerStates({}, 600_000),
    ].join('\n');
    for (const name of [
      PROM_MCP_RESILIENCE_CALLS_TOTAL,
      PROM_MCP_RESILIENCE_RETRIES_TOTAL,
      PROM_MCP_RESILIENCE_ERRORS_TOTAL,
      PROM_MCP_RESILIENCE_RETRY_WASTED_TIME_SECONDS_TOTAL,
      PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_SUM,
      PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_COUNT,
      PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS_TOTAL,
      PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
    ]) {
      expect(all).toContain(name);
    }
    // counts are the last value minus the one before the window (never a bare, extrapolating increase())
    expect(calls).toMatch(/^sum by \(mcp_resilience_outcome\) \(/);
    expect(calls).toContain('last_over_time(mcp_resilience_calls_total[3600000ms])');
    expect(calls).toContain('offset 3600000ms');
    // latency: histogram_quantile over the buckets' exact increases, by le and the group labels
    const p95 = promql.durationQuantile(
      w,
      0.95,
      ['mcp_resilience_server'],
      'mcp_resilience_call_duration_seconds_bucket',
    );
    expect(p95).toMatch(/^histogram_quantile\(0\.95, sum by \(le, mcp_resilience_server\) \(/);
    // the variant filter is the translated label
    expect(promql.selector(PROM_MCP_RESILIENCE_CALLS_TOTAL, { variant: 'canary' })).toBe(
      `${PROM_MCP_RESILIENCE_CALLS_TOTAL}{mcp_resilience_variant="canary"}`,
    );
    // the method filter (a latency row without a tool): the call metrics' label; breakers carry none
    expect(promql.selector(PROM_MCP_RESILIENCE_CALLS_TOTAL, { server: 's', method: 'tools/list' })).toBe(
      `${PROM_MCP_RESILIENCE_CALLS_TOTAL}{mcp_resilience_server="s", mcp_method_name="tools/list"}`,
    );
    expect(promql.breakerStates({ method: 'tools/list' }, 600_000)).not.toContain('mcp_method_name');
  });
});

describe('PrometheusClient', () => {
  it('POSTs form-encoded queries under the path prefix, with bearer or basic auth and the tenant header', async () => {
    const fake = await fakePrometheus(() => ({
      body: vector([{ metric: { outcome: 'success' }, value: 3 }]),
    }));
    const bearer = new PrometheusClient({
      url: `${fake.url}/prometheus/`,
      token: 'tok',
      orgId: 'team-a',
      timeoutMs: 2000,
    });
    expect(await bearer.query('up', 1_700_000_000_123)).toEqual([
      { labels: { outcome: 'success' }, value: 3 },
    ]);
    expect(fake.seen[0]).toMatchObject({ method: 'POST', path: '/prometheus/api/v1/query' });
    expect(fake.seen[0]!.params.get('query')).toBe('up');
    expect(fake.seen[0]!.params.get('time')).toBe('1700000000.123');
    expect(fake.seen[0]!.headers.authorization).toBe('Bearer tok');
    expect(fake.seen[0]!.headers['x-scope-orgid']).toBe('team-a');
    const basic = new PrometheusClient({ url: fake.url, user: 'u', password: 'p:w', timeoutMs: 2000 });
    await basic.query('up', 0);
    expect(fake.seen[1]!.headers.authorization).toBe(`Basic ${Buffer.from('u:p:w').toString('base64')}`);
    const inUrl = new PrometheusClient({
      url: fake.url.replace('http://', 'http://me:secret@'),
      timeoutMs: 2000,
    });
    await inUrl.query('up', 0);
    expect(fake.seen[2]!.headers.authorization).toBe(`Basic ${Buffer.from('me:secret').toString('base64')}`);
  });

  it('parses matrices, special values and label values (GET)', async () => {
    const fake = await fakePrometheus((r) =>
      r.path.endsWith('/values')
        ? { body: { status: 'success', data: ['a', 'b'] } }
        : {
            body: {
              status: 'success',
              data: {
                resultType: 'matrix',
                result: [
                  {
                    metric: { x: '1' },
                    values: [
                      [1.5, '2'],
                      [2.5, 'NaN'],
                      [3.5, '+Inf'],
                    ],
                  },
                ],
              },
            },
          },
    );
    const c = new PrometheusClient({ url: fake.url, timeoutMs: 2000 });
    const [s] = await c.queryRange('x', 1000, 4000, 1000);
    expect(s!.points[0]).toEqual([1500, 2]);
    expect(Number.isNaN(s!.points[1]![1])).toBe(true);
    expect(s!.points[2]![1]).toBe(Number.POSITIVE_INFINITY);
    expect(fake.seen[0]!.params.get('step')).toBe('1.000');
    expect(await c.labelValues('job', ['a{b="c"}', 'd'], 0, 1000)).toEqual(['a', 'b']);
    expect(fake.seen[1]!.method).toBe('GET');
    expect(fake.seen[1]!.params.getAll('match[]')).toEqual(['a{b="c"}', 'd']);
  });

  it('turns every failure into a clear PrometheusError naming PROMETHEUS_URL (credentials masked)', async () => {
    const fake = await fakePrometheus((r) => {
      const q = r.params.get('query');
      if (q === 'bad')
        return {
          status: 400,
          body: { status: 'error', errorType: 'bad_data', error: 'parse error at char 3' },
        };
      if (q === 'exec')
        return { status: 422, body: { status: 'error', errorType: 'execution', error: 'too many samples' } };
      if (q === 'auth') return { status: 401, body: 'Unauthorized', contentType: 'text/plain' };
      if (q === 'html') return { status: 200, body: '<html>login</html>', contentType: 'text/html' };
      if (q === 'slow') return { body: vector([]), delayMs: 500 };
      if (q === 'boom') return { status: 502, body: 'upstream gone', contentType: 'text/plain' };
      return { status: 404, body: '404 page not found', contentType: 'text/plain' };
    });
    const c = new PrometheusClient({ url: fake.url.replace('http://', 'http://me:secret@'), timeoutMs: 200 });
    const failure = async (promise: Promise<unknown>) => {
      const e = await promise.then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(PrometheusError);
      // backend-neutral for the layers above: "the source is unavailable", and which one
      expect(e).toBeInstanceOf(SourceUnavailableError);
      expect((e as SourceUnavailableError).source).toBe('prometheus');
      const err = e as PrometheusError;
      expect(err.message).toMatch(/PROMETHEUS_URL=http:\/\/(\*\*\*@)?127\.0\.0\.1/);
      expect(err.message).not.toContain('secret');
      return err;
    };
    let e = await failure(c.query('bad', 0));
    expect([e.kind, e.detail]).toEqual(['api', 'bad_data']);
    expect(e.message).toContain('parse error at char 3');
    e = await failure(c.query('exec', 0));
    expect(e.message).toContain('HTTP 422, execution');
    e = await failure(c.query('auth', 0));
    expect([e.kind, e.detail]).toEqual(['http', '401']);
    expect(e.message).toContain('PROMETHEUS_TOKEN');
    e = await failure(c.query('html', 0));
    expect(e.kind).toBe('invalid_response');
    expect(e.message).toContain('text/html');
    e = await failure(c.query('slow', 0));
    expect(e.kind).toBe('timeout');
    expect(e.message).toContain('200 ms (PROMETHEUS_TIMEOUT_MS)');
    e = await failure(c.query('boom', 0));
    expect(e.message).toContain('HTTP 502');
    e = await failure(c.query('other', 0));
    expect(e.message).toContain('/prometheus');
    // nothing listening
    const port = await closedPort();
    const closed = new PrometheusClient({ url: `http://127.0.0.1:${port}`, timeoutMs: 2000 });
    e = await failure(closed.query('up', 0));
    expect(e.kind).toBe('unreachable');
    expect(e.message).toContain(`PROMETHEUS_URL=http://127.0.0.1:${port} cannot be reached: ECONNREFUSED`);
  });
});

// -------------------------------------------------------------------------------------------------------------
// PrometheusSource over a scripted API (the real-Prometheus contract suite is in system/)
// -------------------------------------------------------------------------------------------------------------

function scriptedApi(o: {
  query?: (expr: string, t: number) => InstantSample[];
  range?: (expr: string, start: number, end: number, step: number) => RangeSeries[];
}): PrometheusApi & { queries: string[] } {
  const queries: string[] = [];
  return {
    queries,
    async query(expr, t) {
      queries.push(expr);
      return o.query?.(expr, t) ?? [];
    },
    async queryRange(expr, start, end, step) {
      queries.push(expr);
      return o.range?.(expr, start, end, step) ?? [];
    },
    async labelValues() {
      return [];
    },
  };
}

describe('PrometheusSource', () => {
  const NOW = 1_800_000_000_000;
  const source = (api: PrometheusApi) =>
    new PrometheusSource({ api, staleMs: 600_000, scrapeIntervalMs: 15_000, now: () => NOW });

  it('aggregates breaker instances (worst state, live vs stale) and dates states from the subquery parts', async () => {
    const base = { job: 'agent', mcp_resilience_server: 'weather' };
    const api = scriptedApi({
      query: (expr) => {
        if (expr.includes('label_replace')) {
          return [
            {
              labels: {
                ...base,
                instance: 'a',
                mcp_resilience_circuit_breaker_state: 'open',
                part: 'zero_fine',
              },
              value: NOW / 1000 - 60,
            },
            {
              labels: {
                ...base,
                instance: 'a',
                mcp_resilience_circuit_breaker_state: 'open',
                part: 'one_coarse',
              },
              value: NOW / 1000 - 3000,
            },
            {
              labels: {
                ...base,
                instance: 'b',
                mcp_resilience_circuit_breaker_state: 'closed',
                part: 'one_coarse',
              },
              value: NOW / 1000 - 7200,
            },
            {
              labels: {
                ...base,
                instance: 'b',
                mcp_resilience_circuit_breaker_state: 'closed',
                part: 'one_fine',
              },
              value: NOW / 1000 - 3600,
            },
            {
              labels: {
                ...base,
                mcp_resilience_server: 'old',
                instance: 'c',
                mcp_resilience_circuit_breaker_state: 'open',
                part: 'one_fine',
              },
              value: NOW / 1000 - 100,
            },
          ];
        }
        return [
          {
            labels: { __name__: 'x', ...base, instance: 'a', mcp_resilience_circuit_breaker_state: 'open' },
            value: 1,
          },
          {
            labels: { __name__: 'x', ...base, instance: 'b', mcp_resilience_circuit_breaker_state: 'closed' },
            value: 1,
          },
          {
            labels: {
              ...base,
              mcp_resilience_server: 'old',
              instance: 'c',
              mcp_resilience_circuit_breaker_state: 'open',
            },
            value: 2,
          },
        ];
      },
    });
    const s = source(api);
    expect(await s.breakers({ filters: {} })).toEqual([
      { server: 'weather', tool: null, state: 'open', since: NOW - 60_000 + 15_000 },
    ]);
    const tiles = await s.breakerTiles({ from: NOW - 3_600_000, to: NOW, filters: {} });
    // polling again while nothing changed costs only the cheap state query (since is cached for a minute)
    const sinceQueries = () => api.queries.filter((x) => x.includes('label_replace')).length;
    expect(sinceQueries()).toBe(1);
    await s.breakers({ filters: {} });
    expect(sinceQueries()).toBe(1);
    expect(tiles.map((t) => [t.server, t.state, t.stale, t.instances])).toEqual([
      ['weather', 'open', false, { closed: 1, open: 1, half_open: 0 }],
      ['old', 'open', true, { closed: 0, open: 1, half_open: 0 }],
    ]);
  });

  it('lists transitions from the counter per step, following the states within a step, newest last', async () => {
    const labels = (from: string, to: string) => ({
      job: 'agent',
      instance: 'a',
      mcp_resilience_server: 'bouncy',
      mcp_resilience_circuit_breaker_from_state: from,
      mcp_resilience_circuit_breaker_to_state: to,
    });
    const api = scriptedApi({
      range: (expr, start, _end, step) => {
        expect(expr).toContain(PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS_TOTAL);
        expect(step).toBe(15_000);
        return [
          { labels: labels('half_open', 'closed'), points: [[start + step, 1]] },
          { labels: labels('closed', 'open'), points: [[start, 1]] },
          { labels: labels('open', 'half_open'), points: [[start + step, 1]] },
          {
            labels: { ...labels('half_open', 'open'), gen_ai_tool_name: 't' },
            points: [[start + 10 * step, 2]],
          },
        ];
      },
    });
    const from = NOW - 600_000;
    const t = await source(api).transitions({ from, to: NOW, filters: {} });
    expect(t.map((x) => `${x.ts - from} ${x.tool ?? '-'} ${x.from}>${x.to}`)).toEqual([
      '15000 - closed>open',
      '30000 - open>half_open',
      '30000 - half_open>closed',
      '165000 t half_open>open',
      '165000 t half_open>open',
    ]);
    expect(t[0]).toMatchObject({ service: 'agent', instance: 'a', server: 'bouncy', reason: '' });
    expect((await source(api).transitions({ from, to: NOW, filters: {} }, { limit: 2 })).length).toBe(2);
  });

  it('reads the saved cost of avoided model retries from its counter, filtered like the other counts', async () => {
    const api = scriptedApi({
      query: (expr) => {
        if (expr.includes(PROM_MCP_RESILIENCE_MODEL_RETRIES_SAVED_COST_TOTAL))
          return [{ labels: {}, value: 0.75 }];
        if (expr.includes(PROM_MCP_RESILIENCE_MODEL_RETRIES_AVOIDED_TOTAL)) return [{ labels: {}, value: 3 }];
        return [];
      },
    });
    const h = await source(api).headline({ from: NOW - 3_600_000, to: NOW, filters: { server: 'weather' } });
    expect(h.modelRetries).toEqual({ avoided: 3, savedSeconds: 0, savedCost: 0.75 });
    // no failed retry: nothing to infer a cost from, the counter is the cost
    expect(h.wastedRetries).toBe(0);
    const costQueries = api.queries.filter((e) =>
      e.includes(PROM_MCP_RESILIENCE_MODEL_RETRIES_SAVED_COST_TOTAL),
    );
    expect(costQueries.length).toBeGreaterThan(0);
    for (const e of costQueries) {
      expect(e).toMatch(/^sum\(/);
      expect(e).toContain(
        `${PROM_MCP_RESILIENCE_MODEL_RETRIES_SAVED_COST_TOTAL}{mcp_resilience_server="weather"}`,
      );
    }
    // without the counter (agents without costPerAttempt): no cost, not 0
    const none = await source(scriptedApi({})).headline({ from: NOW - 3_600_000, to: NOW, filters: {} });
    expect(none.modelRetries.savedCost).toBeNull();
  });

  it('counts per bucket from a range query evaluated at each bucket end', async () => {
    const api = scriptedApi({
      range: (_expr, start, _end, step) => [
        {
          labels: { mcp_resilience_outcome: 'success' },
          points: [
            [start, 3],
            [start + step, 1],
          ],
        },
        { labels: { mcp_resilience_outcome: 'failure' }, points: [[start + step, 2]] },
      ],
    });
    const q = { from: NOW - 15 * 60_000, to: NOW, filters: {} };
    const s = await source(api).efficiencySeries(q);
    expect(s.step).toBe(20_000); // never finer than the scrape interval (15 s), on a 10 s grid
    expect(s.points[0]).toEqual({ t: s.points[0]!.t, successful: 3, total: 3 });
    expect(s.points[1]).toMatchObject({ successful: 1, total: 3 });
    expect(s.points.reduce((x, p) => x + p.total, 0)).toBe(6);
  });

  it('plans a chart over the range cut to where data can be (from=0 is not 56 years of points)', async () => {
    const asked: Array<{ start: number; end: number; step: number }> = [];
    const api = scriptedApi({
      range: (expr, start, end, step) => {
        // (the chart's queries; not the probe of the instances' exports, over the newest 10 minutes)
        if (!expr.startsWith('sum by (job, instance)')) asked.push({ start, end, step });
        return [];
      },
    });
    const s = await source(api).callSeries({ from: 0, to: NOW, filters: {} });
    expect(asked).toHaveLength(1);
    const { start, end, step } = asked[0]!;
    // Prometheus refuses more than 11,000 points a series; a chart plans at most about 200
    expect((end - start) / step + 1).toBeLessThanOrEqual(201);
    expect(s.points.length).toBeLessThanOrEqual(201);
    expect(start).toBeGreaterThanOrEqual(NOW - MAX_LOOKBACK_MS - 86_400_000);
    // a range asked far into the future is cut at now + the largest skew
    asked.length = 0;
    await source(api).callSeries({ from: NOW - 3_600_000, to: NOW + 365 * 86_400_000, filters: {} });
    expect(asked[0]!.end).toBeLessThanOrEqual(NOW + 2 * 86_400_000);
    // a range within the lookback plans as before
    asked.length = 0;
    await source(api).callSeries({ from: NOW - 7 * 86_400_000, to: NOW, filters: {} });
    expect(asked[0]!.step).toBe(3_600_000);
    expect(asked[0]!.start).toBe(NOW - 7 * 86_400_000 + 3_600_000);
  });
});

describe('live breakers by polling (BreakerPoller)', () => {
  it('publishes state changes, new and vanished breakers, only while someone watches', async () => {
    let current: BreakerSummary[] = [{ server: 'a', tool: null, state: 'closed', since: 1 }];
    const src = { breakers: async () => current } as unknown as MetricsSource;
    const hub = new LiveHub();
    const events: LiveEvent[] = [];
    const poller = new BreakerPoller({ source: src, hub, intervalMs: 1000, tickMs: 0 });
    await poller.poll(); // nobody watches: nothing read
    const unsubscribe = hub.subscribe((e) => events.push(e));
    await poller.poll(); // baseline
    expect(events.filter((e) => e.type === 'breaker')).toEqual([]);
    current = [
      { server: 'a', tool: null, state: 'open', since: 5 },
      { server: 'b', tool: 't', state: 'closed', since: 5 },
    ];
    await poller.poll();
    current = [{ server: 'a', tool: null, state: 'open', since: 6 }]; // since moved: no news
    await poller.poll();
    expect(events.filter((e) => e.type === 'breaker')).toEqual([
      {
        type: 'breaker',
        breakers: [
          { server: 'a', tool: null, state: 'open', since: 5 },
          { server: 'b', tool: 't', state: 'closed', since: 5 },
        ],
        removed: [],
      },
      { type: 'breaker', breakers: [], removed: [{ server: 'b', tool: 't' }] },
    ]);
    expect(events.some((e) => e.type === 'tick')).toBe(true);
    unsubscribe();
    await poller.stop();
  });
});

describe('the dashboard in Prometheus mode (HTTP)', () => {
  it('answers the JSON API from PromQL, refuses OTLP, and reports an unreachable Prometheus clearly', async () => {
    const fake = await fakePrometheus((r) =>
      r.params.get('query')?.startsWith('sum by (mcp_resilience_outcome)') &&
      r.params.get('query')?.includes(PROM_MCP_RESILIENCE_CALLS_TOTAL)
        ? {
            body: vector([
              { metric: { mcp_resilience_outcome: 'success' }, value: 7 },
              { metric: { mcp_resilience_outcome: 'rejected' }, value: 2 },
            ]),
          }
        : { body: vector([]) },
    );
    const s = await startTestServer({ DASHBOARD_SOURCE: 'prometheus', PROMETHEUS_URL: fake.url });
    servers.push(s);
    expect(s.runtime.store).toBeUndefined();
    const summary = await (await fetch(`${s.url}/api/v1/summary?from=0&to=60000`)).json();
    expect(summary.calls).toEqual({ total: 9, success: 7, failure: 0, rejected: 2 });
    expect(summary.retries).toEqual({ total: 0, successful: 0, efficiency: null });
    const counts = fake.seen.filter((r) => r.params.get('query')?.includes(' offset '));
    expect(counts.length).toBeGreaterThan(0);
    expect(counts.every((r) => r.params.get('time') === '60.000')).toBe(true);
    expect((await (await fetch(`${s.url}/api/v1/instances`)).json()).instances).toEqual([]);
    expect((await fetch(`${s.url}/api/v1/summary?bogus=1`)).status).toBe(400);
    // a method filter reaches every call count's PromQL, and no breaker query
    const before = fake.seen.length;
    expect((await fetch(`${s.url}/api/v1/summary?from=0&to=60000&method=tools%2Flist`)).status).toBe(200);
    const asked = fake.seen.slice(before).map((r) => r.params.get('query') ?? '');
    const callCounts = asked.filter((q) => q.includes(PROM_MCP_RESILIENCE_CALLS_TOTAL));
    expect(callCounts.length).toBeGreaterThan(0);
    for (const q of callCounts) expect(q).toContain('mcp_method_name="tools/list"');
    const breakerQueries = asked.filter((q) => q.includes(PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE));
    for (const q of breakerQueries) expect(q).not.toContain('mcp_method_name');
    expect((await fetch(`${s.url}/api/v1/summary?method=`)).status).toBe(400);
    const otlp = await fetch(`${s.url}/v1/traces`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(otlp.status).toBe(404);
    expect((await otlp.json()).message).toContain('does not receive OTLP');

    const port = await closedPort();
    const down = await startTestServer({
      DASHBOARD_SOURCE: 'prometheus',
      PROMETHEUS_URL: `http://127.0.0.1:${port}`,
    });
    servers.push(down);
    const r = await fetch(`${down.url}/api/v1/summary`);
    expect(r.status).toBe(502);
    expect((await r.json()).error).toContain(`PROMETHEUS_URL=http://127.0.0.1:${port} cannot be reached`);
  });
});
