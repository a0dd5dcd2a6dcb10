/**
 * The latency table's grouping, measured: `latency()` over the stored call-duration buckets grouped by server
 * and tool (before) and by server, tool and method (the table's rows since calls without a tool are named by
 * their method), and the table's read now (tools by server and tool, then the calls without a tool by server
 * and method), alternated on one store in the same run. `npx tsx bench/latency-grouping.ts`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EmbeddedSource } from '../lib/data/embedded-source';
import type { Dim } from '../lib/data/primitives';
import { LATENCY_QUANTILES } from '../lib/data/shaped-source';
import { createIngestSink } from '../lib/ingest/ingest-sink';
import { decodeMetrics } from '../lib/otlp/decode';
import { EmbeddedStore } from '../lib/store/embedded-store';
import { kv, ns, SERVERS, TOOLS } from './traces-payload';

const BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const MINUTES = Number(process.env.MINUTES ?? 1440);
const METHODS = ['tools/list', 'resources/read', 'prompts/get'];

function exportOf(start: number, k: number) {
  const series = [
    ...SERVERS.flatMap((s) => TOOLS.map((t) => ({ s, t, m: 'tools/call' }))),
    ...SERVERS.flatMap((s) => METHODS.map((m) => ({ s, t: '', m }))),
  ];
  const dataPoints = series.map(({ s, t, m }, i) => {
    const counts = BOUNDS.map((_, b) => ((k + i + b) % 5) + (b < 6 ? 3 : 0)).concat([1]);
    return {
      attributes: [
        kv('mcp.resilience.server', s),
        kv('mcp.method.name', m),
        ...(t === '' ? [] : [kv('gen_ai.tool.name', t)]),
        kv('mcp.resilience.outcome', 'success'),
      ],
      startTimeUnixNano: ns(start + (k - 1) * 60_000),
      timeUnixNano: ns(start + k * 60_000),
      count: counts.reduce((a, c) => a + c, 0),
      sum: 1,
      bucketCounts: counts,
      explicitBounds: BOUNDS,
    };
  });
  const request = {
    resourceMetrics: [
      {
        resource: { attributes: [kv('service.name', 'bench-agent'), kv('service.instance.id', 'i-1')] },
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'mcp.resilience.call.duration',
                unit: 's',
                histogram: { aggregationTemporality: 1, dataPoints },
              },
            ],
          },
        ],
      },
    ],
  };
  return Buffer.from(JSON.stringify(request, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * (p / 100))] ?? 0;

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'latency-grouping-'));
  const store = new EmbeddedStore({ dataDir, retentionMs: 8 * 86_400_000, maxCalls: 100, maxAttempts: 100 });
  const now = Date.now();
  const start = now - MINUTES * 60_000;
  const sink = createIngestSink(store);
  for (let k = 1; k <= MINUTES; k++) sink.metrics(decodeMetrics(exportOf(start, k), 'json'));
  const p = new EmbeddedSource(store, { staleMs: 600_000 }) as unknown as {
    p: { latency(q: unknown, by: readonly Dim[], qs: readonly number[]): Promise<unknown[]> };
  };
  const q = { from: start, to: now + 60_000, filters: {} };
  const read = (by: readonly Dim[], filters = {}) => p.p.latency({ ...q, filters }, by, LATENCY_QUANTILES);
  const shapes: Record<string, () => Promise<unknown[]>> = {
    'server, tool': () => read(['server', 'tool']),
    'server, tool, method': () => read(['server', 'tool', 'method']),
    // the table's read since a tool is one row whatever its method: tools by server and tool, then the calls
    // without a tool by server and method
    'tools, then untooled by method': async () => [
      ...(await read(['server', 'tool'])),
      ...(await read(['server', 'tool', 'method'], { tool: '' })),
    ],
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(shapes).map((k) => [k, []]));
  const rows: Record<string, number> = {};
  for (let round = 0; round < 40; round++) {
    for (const [name, run] of round % 2 === 0 ? Object.entries(shapes) : Object.entries(shapes).reverse()) {
      const t0 = performance.now();
      const r = await run();
      if (round >= 4) times[name]?.push(performance.now() - t0);
      rows[name] = r.length;
    }
  }
  const line = (name: string) =>
    `${name}: rows ${rows[name]}, p50 ${pct(times[name] ?? [], 50).toFixed(1)} ms, p95 ${pct(times[name] ?? [], 95).toFixed(1)} ms`;
  console.log(`${MINUTES} minutes of exports, ${SERVERS.length * (TOOLS.length + METHODS.length)} series`);
  console.log(line('server, tool'));
  console.log(line('server, tool, method'));
  console.log(line('tools, then untooled by method'));
  const ratio = pct(times['server, tool, method'] ?? [], 50) / pct(times['server, tool'] ?? [], 50);
  console.log(`ratio (with method / without), p50: ${ratio.toFixed(2)}`);
  store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

await main();
