/**
 * npx tsx bench/calls-page.ts: the trace ingest and the Calls page with the span tables at their caps (50,000
 * calls, 200,000 attempts: the defaults), where the ingest runs once a store has filled: 220 exports of the main
 * bench's traces (1,000 calls each), retention every 50 exports, then the Calls page's read (50 calls and their
 * attempts, pages 1-10) 60 times. Prints one JSON object: attempt spans per CPU second of the sink (map + SQLite
 * write) and the read's p50/p95. The load average is part of it (absolute times follow the load).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EmbeddedSource } from '../lib/data/embedded-source';
import { createIngestSink } from '../lib/ingest/ingest-sink';
import { decodeTraces } from '../lib/otlp/decode';
import { decompressCounted } from '../lib/otlp/decompress-counted';
import { elementScanner } from '../lib/otlp/element-scanner';
import type { TracesRequest } from '../lib/otlp/model';
import { EmbeddedStore } from '../lib/store/embedded-store';
import { tracesPayload } from './traces-payload';

const EXPORTS = 220;
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 100) / 100;
};

async function decoded(body: Uint8Array): Promise<TracesRequest> {
  const scanner = elementScanner('protobuf', 'traces', undefined);
  return decodeTraces(
    await decompressCounted(Buffer.from(body), 'gzip', scanner, 64 * 1024 * 1024),
    'protobuf',
  );
}

/** Fills the store through the sink; returns attempt spans per CPU second of the sink alone. */
async function ingest(store: EmbeddedStore, now: number): Promise<number> {
  const sink = createIngestSink(store);
  let cpu = 0;
  let attempts = 0;
  for (let i = 0; i < EXPORTS; i++) {
    const payload = tracesPayload(1000, now - 600_000 + i * 1000);
    const request = await decoded(payload.body);
    const t = cpuMs();
    sink.traces(request);
    cpu += cpuMs() - t;
    attempts += payload.attempts;
    if (i % 50 === 49) store.enforceRetention();
  }
  store.enforceRetention();
  return Math.round(attempts / (cpu / 1000));
}

async function main() {
  const now = Date.now();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-bench-calls-'));
  const store = new EmbeddedStore({
    dataDir,
    retentionMs: 8 * 86_400_000,
    maxCalls: 50_000,
    maxAttempts: 200_000,
  });
  try {
    const insertPerCpuSecond = await ingest(store, now);
    const source = new EmbeddedSource(store, { staleMs: 600_000 });
    const q = { from: now - 900_000, to: now, filters: {} };
    const times: number[] = [];
    for (let i = 0; i < 60; i++) {
      const t = performance.now();
      const rows = await source.recentCalls(q, { limit: 50, offset: (i % 10) * 500 });
      times.push(performance.now() - t);
      if (rows.length !== 50 || rows.some((r) => r.attemptRows.length !== r.attempts)) {
        throw new Error('the Calls page read missed calls or attempts');
      }
    }
    const count = (table: string) => store.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get();
    console.log(
      JSON.stringify({
        calls: count('calls'),
        attempts: count('attempts'),
        insertAttemptSpansPerCpuSecond: insertPerCpuSecond,
        callsPageMs: { p50: pct(times, 50), p95: pct(times, 95) },
        loadAverage: os.loadavg()[0],
      }),
    );
  } finally {
    store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
