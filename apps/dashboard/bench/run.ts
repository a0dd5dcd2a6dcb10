/*
 * npm run bench: ingest throughput (attempt spans/s, metric points/s) and overview latency (p50/p95) with
 * 1 million calls stored. Results go to bench-results.json and a table on stdout.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
  ATTR_MCP_RESILIENCE_ERROR_CLASS,
  ATTR_MCP_RESILIENCE_ERROR_TYPE,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_SERVER,
  METRIC_MCP_RESILIENCE_CALL_DURATION,
  METRIC_MCP_RESILIENCE_CALLS,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
  METRIC_MCP_RESILIENCE_ERRORS,
  METRIC_MCP_RESILIENCE_RETRIES,
  METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME,
} from '@mcp-resilience/middleware/semconv';
import { loadConfig } from '../lib/config';
import type { TimeQuery } from '../lib/data/types';
import { createIngestSink } from '../lib/ingest/ingest-sink';
import type { MetricsRequest } from '../lib/otlp/model';
import { ExportMetricsServiceRequest } from '../lib/otlp/schema';
import { createRuntime } from '../lib/runtime';
import { createRequestListener } from '../lib/server/handler';
import { storeFleetBreakers } from './fleet-breakers';
import { measureTraceStages } from './trace-ingest-stages';
import { kv, ns, SERVERS, TOOLS, tracesPayload } from './traces-payload';

const APP_DIR = path.resolve(import.meta.dirname, '..');
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
/** The overview's latency target with 1M calls stored (design: a dashboard that answers during an incident). */
const OVERVIEW_P95_TARGET_MS = 150;
/** The Breakers page with 100,000 breakers stored (issue #22): p95 and size of one page. */
const BREAKERS_STORED = 100_000;
const BREAKERS_P95_TARGET_MS = 300;
const BREAKERS_PAGE_TARGET_BYTES = 1_000_000;
/** Ingest throughput target (issue #22): attempt spans per second over HTTP. */
const INGEST_TARGET_SPANS_PER_S = 20_000;
/** What counting the elements of a JSON metrics export may cost, against decoding it without the count. */
const JSON_COUNT_COST_TARGET = 0.1;
const log = (...a: unknown[]) => console.error('[bench]', ...a);

/** One cumulative metrics export of one instance (the contract's instruments, all series). */
function metricsExport(instance: string, start: number, time: number, k: number, callsPerExport: number) {
  const seriesCalls: Array<[string, string, string, string, string]> = [];
  for (const s of SERVERS)
    for (const t of TOOLS) {
      seriesCalls.push([s, t, 'success', '', '']);
      seriesCalls.push([s, t, 'failure', 'retryable', 'unavailable']);
      seriesCalls.push([s, t, 'failure', 'non_retryable', 'invalid_params']);
      seriesCalls.push([s, t, 'rejected', 'conditional', 'circuit_open']);
    }
  const per = callsPerExport / seriesCalls.length;
  const share = (outcome: string) => (outcome === 'success' ? 3.2 : outcome === 'rejected' ? 0.2 : 0.3);
  const attrs = (o: Record<string, string>) =>
    Object.entries(o)
      .filter(([, v]) => v !== '')
      .map(([kk, v]) => kv(kk, v));
  const callPoints = seriesCalls.map(([s, t, o, c, e]) => ({
    attributes: attrs({
      [ATTR_MCP_RESILIENCE_SERVER]: s,
      [ATTR_GEN_AI_TOOL_NAME]: t,
      [ATTR_MCP_METHOD_NAME]: 'tools/call',
      [ATTR_MCP_RESILIENCE_OUTCOME]: o,
      [ATTR_MCP_RESILIENCE_ERROR_CLASS]: c,
      [ATTR_MCP_RESILIENCE_ERROR_TYPE]: e,
    }),
    startTimeUnixNano: ns(start),
    timeUnixNano: ns(time),
    asInt: Math.round(k * per * share(o)),
  }));
  const sum = (name: string, points: unknown[]) => ({
    name,
    sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: points },
  });
  const retryPoints: unknown[] = [];
  const errorPoints: unknown[] = [];
  const durationPoints: unknown[] = [];
  const wastedPoints: unknown[] = [];
  const statePoints: unknown[] = [];
  for (const s of SERVERS) {
    for (const t of TOOLS) {
      const a = {
        [ATTR_MCP_RESILIENCE_SERVER]: s,
        [ATTR_GEN_AI_TOOL_NAME]: t,
        [ATTR_MCP_METHOD_NAME]: 'tools/call',
      };
      for (const [o, w] of [
        ['success', 0.5],
        ['failure', 0.2],
      ] as const) {
        retryPoints.push({
          attributes: attrs({
            ...a,
            [ATTR_MCP_RESILIENCE_OUTCOME]: o,
            [ATTR_MCP_RESILIENCE_ERROR_TYPE]: 'unavailable',
          }),
          startTimeUnixNano: ns(start),
          timeUnixNano: ns(time),
          asInt: Math.round(k * per * w),
        });
      }
      for (const [c, e, w] of [
        ['retryable', 'unavailable', 0.7],
        ['non_retryable', 'invalid_params', 0.3],
        ['retryable', 'timeout', 0.1],
      ] as const) {
        errorPoints.push({
          attributes: attrs({
            ...a,
            [ATTR_MCP_RESILIENCE_ERROR_CLASS]: c,
            [ATTR_MCP_RESILIENCE_ERROR_TYPE]: e,
          }),
          startTimeUnixNano: ns(start),
          timeUnixNano: ns(time),
          asInt: Math.round(k * per * w),
        });
      }
      for (const [o, c] of [
        ['success', ''],
        ['failure', 'retryable'],
        ['failure', 'non_retryable'],
      ] as const) {
        const count = Math.round(k * per * (o === 'success' ? 3.2 : 0.3));
        durationPoints.push({
          attributes: attrs({ ...a, [ATTR_MCP_RESILIENCE_OUTCOME]: o, [ATTR_MCP_RESILIENCE_ERROR_CLASS]: c }),
          startTimeUnixNano: ns(start),
          timeUnixNano: ns(time),
          count,
          sum: count * 0.05,
          bucketCounts: [0, 0, 0, count, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
          explicitBounds: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
        });
      }
      wastedPoints.push({
        attributes: attrs(a),
        startTimeUnixNano: ns(start),
        timeUnixNano: ns(time),
        asDouble: k * per * 0.02,
      });
    }
    for (const st of ['closed', 'open', 'half_open']) {
      statePoints.push({
        attributes: attrs({
          [ATTR_MCP_RESILIENCE_SERVER]: s,
          [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE]: st,
        }),
        timeUnixNano: ns(time),
        asInt: st === 'closed' ? 1 : 0,
      });
    }
  }
  const metrics = [
    sum(METRIC_MCP_RESILIENCE_CALLS, callPoints),
    sum(METRIC_MCP_RESILIENCE_RETRIES, retryPoints),
    sum(METRIC_MCP_RESILIENCE_ERRORS, errorPoints),
    {
      name: METRIC_MCP_RESILIENCE_CALL_DURATION,
      histogram: { aggregationTemporality: 2, dataPoints: durationPoints },
    },
    sum(METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME, wastedPoints),
    { name: METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE, gauge: { dataPoints: statePoints } },
  ];
  const points =
    callPoints.length +
    retryPoints.length +
    errorPoints.length +
    durationPoints.length +
    wastedPoints.length +
    statePoints.length;
  return {
    request: {
      resourceMetrics: [
        {
          resource: { attributes: [kv('service.name', 'bench-agent'), kv('service.instance.id', instance)] },
          scopeMetrics: [{ scope: { name: '@mcp-resilience/middleware' }, metrics }],
        },
      ],
    },
    points,
  };
}

async function post(url: string, body: Uint8Array) {
  const res = await fetch(url, {
    method: 'POST',
    body: body as BodyInit,
    headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-bench-'));
  // 8 days: the fill starts 7 days back and must stay inside the retention while it runs (older points are refused)
  // MAX_LABEL_VALUES: the breakers part stores 1,000 tools on 100 servers
  const config = loadConfig({
    DATA_DIR: dataDir,
    OTLP_MAX_CONCURRENT: '16',
    RETENTION_DAYS: '8',
    MAX_LABEL_VALUES: '2000',
  });
  const rt = createRuntime(config, { log: () => undefined });
  const server = http.createServer(createRequestListener(rt));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let peakRss = process.memoryUsage().rss;
  const sample = () => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  };
  const sampler = setInterval(sample, 100);

  // ---- 1. traces ingest over HTTP (protobuf + gzip, 4 concurrent exporters) ----
  log('generating trace payloads…');
  const now = Date.now();
  const payloads = Array.from({ length: 80 }, (_, i) => tracesPayload(1000, now - 600_000 + i * 1000));
  const totalAttempts = payloads.reduce((s, p) => s + p.attempts, 0);
  const totalSpans = payloads.reduce((s, p) => s + p.spans, 0);
  log(`ingesting ${totalSpans} spans (${totalAttempts} attempt spans) in ${payloads.length} requests…`);
  let t = performance.now();
  // CPU time too: on a shared machine the wall clock also counts other processes' turns (this process's CPU
  // includes the exporters' side of the requests, so it is a lower bound of the dashboard's throughput)
  const cpu0 = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < payloads.length) await post(`${base}/v1/traces`, payloads[next++]!.body);
    }),
  );
  const traceSeconds = (performance.now() - t) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const traceCpuSeconds = (cpu.user + cpu.system) / 1e6;
  const loadAtIngest = os.loadavg()[0]!;
  log(
    `traces: ${Math.round(totalAttempts / traceSeconds)} attempt spans/s (wall), ${Math.round(totalAttempts / traceCpuSeconds)} per CPU second (${os.loadavg()[0]!.toFixed(1)} load)`,
  );
  // the same bodies in process: decode only, then insert only (a fresh store), CPU per stage
  const stages = await measureTraceStages(
    payloads.map((p) => p.body),
    totalAttempts,
  );
  log(
    `trace stages (attempt spans per CPU second): decode only ${stages.decodeOnly}, insert only ${stages.insertOnly}, both on one core ${stages.floor}`,
  );
  if (process.env.BENCH_ONLY === 'ingest') {
    // a quick run while iterating: the ingest numbers only, nothing written
    server.closeAllConnections();
    server.close();
    await rt.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    return;
  }

  // ---- 2. metrics ingest over HTTP: cumulative exports of 20 instances ----
  const instances = Array.from({ length: 20 }, (_, i) => `inst-${i}`);
  const metricBodies: Array<{ body: Uint8Array; points: number }> = [];
  for (let k = 1; k <= 10; k++) {
    for (const inst of instances) {
      const m = metricsExport(inst, now - 3_600_000, now - 600_000 + k * 10_000, k, 50);
      metricBodies.push({
        body: gzipSync(
          ExportMetricsServiceRequest.encode(ExportMetricsServiceRequest.fromObject(m.request)).finish(),
        ),
        points: m.points,
      });
    }
  }
  const totalPoints = metricBodies.reduce((s, m) => s + m.points, 0);
  log(`ingesting ${totalPoints} metric points in ${metricBodies.length} requests…`);
  t = performance.now();
  for (const m of metricBodies) await post(`${base}/v1/metrics`, m.body);
  const metricSeconds = (performance.now() - t) / 1000;

  // ---- 3. fill: 1 million calls over 7 days (2 instances exporting every minute) ----
  log('filling the store with 1,000,000 calls over 7 days…');
  const fillStart = now - 7 * 86_400_000;
  const minutes = 7 * 24 * 60;
  const callsPerExport = 1_000_000 / (minutes * 2);
  t = performance.now();
  let filledCalls = 0;
  const { decodeMetrics } = await import('../lib/otlp/decode');
  const store = rt.store;
  if (!store) throw new Error('the bench needs the embedded store (DASHBOARD_SOURCE=embedded)');
  const sink = createIngestSink(store);
  // JSON metric ingest (decode + store), every other minute without the element count (as before the bounds):
  // what the count costs, measured in the same run on the same store
  const jsonIngest = { counted: { ms: 0, points: 0 }, uncounted: { ms: 0, points: 0 } };
  for (let k = 1; k <= minutes; k++) {
    for (const inst of ['fill-a', 'fill-b']) {
      const m = metricsExport(inst, fillStart, fillStart + k * 60_000, k, callsPerExport);
      const body = Buffer.from(
        JSON.stringify(m.request, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)),
      );
      const counted = k % 2 === 0;
      const t0 = performance.now();
      const decoded: MetricsRequest = decodeMetrics(counted ? body : { counted: body }, 'json');
      sink.metrics(decoded);
      const part = counted ? jsonIngest.counted : jsonIngest.uncounted;
      part.ms += performance.now() - t0;
      part.points += m.points;
    }
    if (k % 2000 === 0) log(`  ${k}/${minutes} minutes`);
  }
  const fillSeconds = (performance.now() - t) / 1000;
  const s7 = await rt.source.summary({
    from: fillStart - 60_000,
    to: now + 60_000,
    filters: { service: 'bench-agent' },
  });
  filledCalls = s7.calls.total;
  log(`stored calls (metrics, all windows): ${filledCalls}; fill took ${round(fillSeconds)} s`);
  store.enforceRetention();

  // ---- 4. overview latency through the data layer ----
  const overview = async (q: TimeQuery) => {
    const s = rt.source;
    await Promise.all([
      s.headline(q),
      s.efficiencySeries(q),
      s.callSeries(q),
      s.errorSeries(q, 'class'),
      s.errorBreakdown(q, 'type'),
      s.errorBreakdown(q, 'class'),
      s.dimensions(q),
    ]);
    rt.alertStore.firing();
  };
  const latency: Record<string, { p50: number; p95: number; max: number }> = {};
  for (const [label, span] of [
    ['1h', 3_600_000],
    ['24h', 86_400_000],
    ['7d', 7 * 86_400_000],
  ] as const) {
    const times: number[] = [];
    for (let i = 0; i < 60; i++) {
      const end = Date.now();
      const q = { from: end - span, to: end, filters: {} };
      const t0 = performance.now();
      await overview(q);
      if (i >= 5) times.push(performance.now() - t0);
    }
    latency[`data ${label}`] = {
      p50: round(pct(times, 50), 2),
      p95: round(pct(times, 95), 2),
      max: round(Math.max(...times), 2),
    };
  }
  // ---- 5. 100,000 breakers (100 instances × 1,000 per-tool breakers, 1% of them then open) ----
  const breakerFill = fillBreakers(store, decodeMetrics);
  log(`stored ${breakerFill.breakers.toLocaleString()} breakers in ${round(breakerFill.seconds)} s`);

  clearInterval(sampler);
  sample();
  server.closeAllConnections();
  server.close();
  await rt.close();

  // ---- 6. overview and Breakers page latency through the built server (GET /?range=..., /breakers) ----
  const breakerPages: Record<string, { p50: number; p95: number; max: number; bytes: number }> = {};
  const built =
    fs.existsSync(path.join(APP_DIR, 'dist', 'server.mjs')) &&
    fs.existsSync(path.join(APP_DIR, '.next', 'BUILD_ID'));
  if (built) {
    const child = spawn(process.execPath, [path.join(APP_DIR, 'dist', 'server.mjs')], {
      cwd: APP_DIR,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, NEXT_TELEMETRY_DISABLED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      out += c;
    });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 30_000);
      child.stdout.on('data', () => {
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    for (const range of ['1h', '24h', '7d']) {
      const times: number[] = [];
      for (let i = 0; i < 40; i++) {
        const t0 = performance.now();
        const res = await fetch(`${url}/?range=${range}`);
        await res.text();
        if (res.status !== 200) throw new Error(`GET / answered ${res.status}`);
        if (i >= 5) times.push(performance.now() - t0);
      }
      latency[`page ${range}`] = {
        p50: round(pct(times, 50), 2),
        p95: round(pct(times, 95), 2),
        max: round(Math.max(...times), 2),
      };
    }
    const times: number[] = [];
    for (let i = 0; i < 40; i++) {
      const t0 = performance.now();
      await (await fetch(`${url}/api/v1/summary`)).text();
      if (i >= 5) times.push(performance.now() - t0);
    }
    latency['api summary 1h'] = {
      p50: round(pct(times, 50), 2),
      p95: round(pct(times, 95), 2),
      max: round(Math.max(...times), 2),
    };
    for (const [label, qs] of [
      ['first page', ''],
      ['page 1,000', '?page=1000'],
      ['filtered (match)', '?match=tool-0042'],
      ['open only', '?state=open'],
    ] as const) {
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < 25; i++) {
        const t0 = performance.now();
        const res = await fetch(`${url}/breakers${qs}`);
        const html = await res.text();
        if (res.status !== 200) throw new Error(`GET /breakers${qs} answered ${res.status}`);
        if (i === 0 && !html.includes('breaker-more') && qs === '')
          throw new Error('the Breakers page does not say how many more breakers there are');
        bytes = Buffer.byteLength(html);
        if (i >= 3) times.push(performance.now() - t0);
      }
      breakerPages[label] = {
        p50: round(pct(times, 50), 2),
        p95: round(pct(times, 95), 2),
        max: round(Math.max(...times), 2),
        bytes,
      };
    }
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  } else {
    log('dashboard not built: skipping the page latency (run npm run build first)');
  }

  const dbBytes = ['dashboard.db', 'dashboard.db-wal']
    .map((f) => path.join(dataDir, f))
    .filter((f) => fs.existsSync(f))
    .reduce((s, f) => s + fs.statSync(f).size, 0);
  const results = {
    date: new Date().toISOString(),
    machine: {
      node: process.version,
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model ?? '?',
      memGiB: round(os.totalmem() / 2 ** 30),
    },
    ingest: {
      traces: {
        requests: payloads.length,
        spans: totalSpans,
        attemptSpans: totalAttempts,
        seconds: round(traceSeconds, 3),
        spansPerSecond: Math.round(totalSpans / traceSeconds),
        attemptSpansPerSecond: Math.round(totalAttempts / traceSeconds),
        cpuSeconds: round(traceCpuSeconds, 3),
        attemptSpansPerCpuSecond: Math.round(totalAttempts / traceCpuSeconds),
        loadAverage: round(loadAtIngest, 1),
        stagesPerCpuSecond: stages,
        target: 'attempt spans/s >= 20000',
      },
      metrics: {
        requests: metricBodies.length,
        points: totalPoints,
        seconds: round(metricSeconds, 3),
        pointsPerSecond: Math.round(totalPoints / metricSeconds),
      },
      jsonMetrics: {
        countedPointsPerSecond: Math.round(jsonIngest.counted.points / (jsonIngest.counted.ms / 1000)),
        uncountedPointsPerSecond: Math.round(jsonIngest.uncounted.points / (jsonIngest.uncounted.ms / 1000)),
        countCost: round(
          jsonIngest.counted.ms /
            jsonIngest.counted.points /
            (jsonIngest.uncounted.ms / jsonIngest.uncounted.points) -
            1,
          3,
        ),
        target: `element count costs < ${JSON_COUNT_COST_TARGET * 100}% of JSON metric ingest`,
      },
    },
    store: {
      callsStored: filledCalls,
      fillSeconds: round(fillSeconds),
      databaseMiB: round(dbBytes / 2 ** 20),
    },
    overviewLatencyMs: latency,
    overviewTarget: `p95 < ${OVERVIEW_P95_TARGET_MS} ms`,
    overviewTargetMet: Object.values(latency).every((v) => v.p95 < OVERVIEW_P95_TARGET_MS),
    breakersPage: {
      breakersStored: breakerFill.breakers,
      fillSeconds: round(breakerFill.seconds),
      latencyMs: breakerPages,
      target: `p95 < ${BREAKERS_P95_TARGET_MS} ms, page < ${BREAKERS_PAGE_TARGET_BYTES} bytes`,
      targetMet:
        Object.keys(breakerPages).length > 0 &&
        Object.values(breakerPages).every(
          (v) => v.p95 < BREAKERS_P95_TARGET_MS && v.bytes < BREAKERS_PAGE_TARGET_BYTES,
        ),
    },
    peakRssMiB: round(peakRss / 2 ** 20),
  };
  const targets = targetsTable(results);
  fs.writeFileSync(
    path.join(APP_DIR, 'bench-results.json'),
    `${JSON.stringify({ ...results, targets }, null, 2)}\n`,
  );
  fs.rmSync(dataDir, { recursive: true, force: true });

  console.log('\nmcp-resilience dashboard bench');
  console.table({
    'traces ingest (HTTP, protobuf+gzip)': {
      value: `${results.ingest.traces.attemptSpansPerSecond.toLocaleString()} attempt spans/s`,
      detail: `${results.ingest.traces.spansPerSecond.toLocaleString()} spans/s total`,
      target: '>= 20,000 attempt spans/s',
    },
    'traces: decode only / insert only (per CPU s)': {
      value: `${stages.decodeOnly.toLocaleString()} / ${stages.insertOnly.toLocaleString()}`,
      detail: `both on one core ${stages.floor.toLocaleString()} attempt spans/s`,
      target: 'reference',
    },
    'metrics ingest (HTTP, protobuf+gzip)': {
      value: `${results.ingest.metrics.pointsPerSecond.toLocaleString()} points/s`,
      detail: `${totalPoints.toLocaleString()} points`,
      target: '',
    },
    'calls stored': {
      value: filledCalls.toLocaleString(),
      detail: `db ${results.store.databaseMiB} MiB`,
      target: '1,000,000',
    },
    ...Object.fromEntries(
      Object.entries(latency).map(([k, v]) => [
        `overview ${k}`,
        {
          value: `p50 ${v.p50} ms`,
          detail: `p95 ${v.p95} ms (max ${v.max})`,
          target: `p95 < ${OVERVIEW_P95_TARGET_MS} ms: ${v.p95 < OVERVIEW_P95_TARGET_MS ? 'met' : 'MISSED'}`,
        },
      ]),
    ),
    ...Object.fromEntries(
      Object.entries(breakerPages).map(([k, v]) => [
        `breakers page, ${k} (${(breakerFill.breakers / 1000).toFixed(0)}k stored)`,
        {
          value: `p50 ${v.p50} ms`,
          detail: `p95 ${v.p95} ms (max ${v.max}), ${round(v.bytes / 1024)} KiB`,
          target: `p95 < ${BREAKERS_P95_TARGET_MS} ms, < 1 MB: ${v.p95 < BREAKERS_P95_TARGET_MS && v.bytes < BREAKERS_PAGE_TARGET_BYTES ? 'met' : 'MISSED'}`,
        },
      ]),
    ),
    'peak RSS': { value: `${results.peakRssMiB} MiB`, detail: '', target: 'bounded' },
  });
  console.log('\ntargets (issue #22)');
  console.table(targets);
  console.log('written to bench-results.json');
}

/** The last run of bench/attacks.ts (bench-attacks.json), as a row of the targets table. */
function attacksRow<R>(row: (target: string, measured: string, met: boolean | undefined) => R): R {
  const target = 'each answered < 500 ms, probes answered, RSS < 512 MiB';
  const file = path.join(APP_DIR, 'bench-attacks.json');
  if (!fs.existsSync(file)) return row(target, '- (npx tsx bench/attacks.ts)', undefined);
  const a = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    date: string;
    attacks: Array<{ worstMs: number }>;
    peakRssMiB: number;
    targets: { answeredMet: boolean; probesMet: boolean; rssMet: boolean };
  };
  const worst = Math.max(...a.attacks.slice(1).map((x) => x.worstMs));
  return row(
    target,
    `slowest ${worst} ms, RSS ${a.peakRssMiB} MiB (${a.date.slice(0, 16)})`,
    a.targets.answeredMet && a.targets.probesMet && a.targets.rssMet,
  );
}

type Results = {
  readonly ingest: {
    readonly traces: {
      readonly attemptSpansPerSecond: number;
      readonly spansPerSecond: number;
      readonly attemptSpansPerCpuSecond: number;
      readonly loadAverage: number;
    };
    readonly jsonMetrics: { readonly countCost: number };
  };
  readonly overviewLatencyMs: Record<string, { p95: number }>;
  readonly breakersPage: { readonly latencyMs: Record<string, { p95: number; bytes: number }> };
};

/** Every target of the bench, with what was measured and whether it was met. */
function targetsTable(r: Results): Record<string, { target: string; measured: string; met: string }> {
  const row = (target: string, measured: string, met: boolean | undefined) => ({
    target,
    measured,
    met: met === undefined ? 'not measured' : met ? 'met' : 'MISSED',
  });
  const worst = (rows: Record<string, { p95: number }>, prefix: string) => {
    const p95s = Object.entries(rows)
      .filter(([k]) => k.startsWith(prefix))
      .map(([, v]) => v.p95);
    return p95s.length === 0 ? undefined : Math.max(...p95s);
  };
  const data = worst(r.overviewLatencyMs, 'data ');
  const page = worst(r.overviewLatencyMs, 'page ');
  const breakers = Object.values(r.breakersPage.latencyMs);
  const breakersP95 = breakers.length === 0 ? undefined : Math.max(...breakers.map((b) => b.p95));
  const breakersBytes = breakers.length === 0 ? undefined : Math.max(...breakers.map((b) => b.bytes));
  const t = r.ingest.traces;
  return {
    'traces ingest (HTTP, protobuf+gzip)': row(
      `>= ${INGEST_TARGET_SPANS_PER_S.toLocaleString()} attempt spans/s`,
      `${t.attemptSpansPerSecond.toLocaleString()} attempt spans/s (${t.spansPerSecond.toLocaleString()} spans/s) at load ${t.loadAverage}`,
      t.attemptSpansPerSecond >= INGEST_TARGET_SPANS_PER_S,
    ),
    'traces ingest per CPU second of the process': row(
      `>= ${INGEST_TARGET_SPANS_PER_S.toLocaleString()} attempt spans`,
      `${t.attemptSpansPerCpuSecond.toLocaleString()} attempt spans (exporters' side included)`,
      t.attemptSpansPerCpuSecond >= INGEST_TARGET_SPANS_PER_S,
    ),
    'JSON metric ingest: cost of the element count': row(
      `< ${JSON_COUNT_COST_TARGET * 100}%`,
      `${round(r.ingest.jsonMetrics.countCost * 100)}%`,
      r.ingest.jsonMetrics.countCost < JSON_COUNT_COST_TARGET,
    ),
    'overview, data layer, 1M calls (worst range)': row(
      `p95 < ${OVERVIEW_P95_TARGET_MS} ms`,
      data === undefined ? '-' : `p95 ${data} ms`,
      data === undefined ? undefined : data < OVERVIEW_P95_TARGET_MS,
    ),
    'overview page, built server (worst range)': row(
      `p95 < ${OVERVIEW_P95_TARGET_MS} ms`,
      page === undefined ? '- (not built)' : `p95 ${page} ms`,
      page === undefined ? undefined : page < OVERVIEW_P95_TARGET_MS,
    ),
    'Breakers page, 100k breakers (worst query)': row(
      `p95 < ${BREAKERS_P95_TARGET_MS} ms, < 1 MB`,
      breakersP95 === undefined
        ? '- (not built)'
        : `p95 ${breakersP95} ms, ${round((breakersBytes ?? 0) / 1024)} KiB`,
      breakersP95 === undefined
        ? undefined
        : breakersP95 < BREAKERS_P95_TARGET_MS && (breakersBytes ?? 0) < BREAKERS_PAGE_TARGET_BYTES,
    ),
    'attacks (bench/attacks.ts, last run)': attacksRow(row),
  };
}

/**
 * Fills the store with BREAKERS_STORED per-tool breakers: 100 instances report 1,000 breakers each (one server
 * per instance), all closed, then 1% of them open and 0.5% half-open (transitions included).
 */
function fillBreakers(
  store: NonNullable<ReturnType<typeof createRuntime>['store']>,
  decode: (body: Buffer, encoding: 'json') => MetricsRequest,
): { breakers: number; seconds: number } {
  const t0 = performance.now();
  const breakers = storeFleetBreakers(store, decode, BREAKERS_STORED / 1000, 1000);
  return { breakers, seconds: (performance.now() - t0) / 1000 };
}

main()
  // a handle of a closed runtime (the stages' store) may outlive it: the bench ends when its work did
  .then(() => process.exit(0))
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
