/**
 * npm run bench:breakers: the Breakers page alone (issue #22's target), quicker than the full bench: 100,000
 * breakers stored (100 instances × 1,000 per-tool breakers, 1% open, 0.5% half-open), then the built server's
 * GET /breakers (first page, page 1,000, a text filter, open only) and the overview page, p50/p95 and bytes.
 * Needs `npm run build`. Prints one JSON object; the load average is part of it (absolute times follow the load).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeMetrics } from '../lib/otlp/decode';
import { EmbeddedStore } from '../lib/store/embedded-store';
import { storeFleetBreakers } from './fleet-breakers';

const APP_DIR = path.resolve(import.meta.dirname, '..');
const PER_INSTANCE = 1000;
const INSTANCES = 100;
const P95_TARGET_MS = 300;
const PAGE_TARGET_BYTES = 1_000_000;
const log = (...a: unknown[]) => console.error('[bench:breakers]', ...a);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const round = (x: number) => Math.round(x * 10) / 10;

function fill(dataDir: string): number {
  const store = new EmbeddedStore({
    dataDir,
    retentionMs: 8 * 86_400_000,
    maxCalls: 100_000,
    maxAttempts: 100_000,
    maxLabelValues: 2000,
  });
  const stored = storeFleetBreakers(store, decodeMetrics, INSTANCES, PER_INSTANCE);
  store.close();
  return stored;
}

async function startServer(dataDir: string) {
  const child = spawn(process.execPath, [path.join(APP_DIR, 'dist', 'server.mjs')], {
    cwd: APP_DIR,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, MAX_LABEL_VALUES: '2000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', () => reject(new Error(`the server exited: ${out}`)));
  });
  return { url, pid: child.pid!, stop: () => new Promise((r) => child.once('exit', r).kill('SIGTERM')) };
}

/** CPU time (user + system, ms) the server process has used: per request, it does not grow with the load. */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Wall times (p50/p95/max, ms), the server's CPU time per request (median, ms) and the page's bytes. */
async function measure(url: string, pid: number, requests = 25) {
  const times: number[] = [];
  const cpu: number[] = [];
  let bytes = 0;
  for (let i = 0; i < requests; i++) {
    const t0 = performance.now();
    const c0 = cpuMs(pid);
    const res = await fetch(url);
    const html = await res.text();
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
    bytes = Buffer.byteLength(html);
    if (i >= 3) {
      times.push(performance.now() - t0);
      cpu.push(cpuMs(pid) - c0);
    }
  }
  return {
    p50: round(pct(times, 50)),
    p95: round(pct(times, 95)),
    max: round(Math.max(...times)),
    cpuMsMedian: round(pct(cpu, 50)),
    bytes,
  };
}

async function main() {
  if (!fs.existsSync(path.join(APP_DIR, '.next', 'BUILD_ID'))) throw new Error('run `npm run build` first');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-bench-breakers-'));
  const t0 = performance.now();
  const stored = fill(dataDir);
  log(`stored ${stored} breakers in ${round((performance.now() - t0) / 1000)} s`);
  const server = await startServer(dataDir);
  const pages: Record<string, Awaited<ReturnType<typeof measure>>> = {};
  try {
    for (const [label, qs] of [
      ['first page', ''],
      ['page 1,000', '?page=1000'],
      ['filtered (match)', '?match=tool-0042'],
      ['open only', '?state=open'],
    ] as const) {
      pages[label] = await measure(`${server.url}/breakers${qs}`, server.pid);
      log(label, pages[label]);
    }
    pages['overview 1h'] = await measure(`${server.url}/?range=1h`, server.pid);
    // the reference: a request that does no work, in the same run (how much of a page's time is the load)
    pages['reference /api/health'] = await measure(`${server.url}/api/health`, server.pid);
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const breakerPages = Object.entries(pages).filter(
    ([k]) => !k.startsWith('overview') && !k.startsWith('ref'),
  );
  console.log(
    JSON.stringify(
      {
        breakersStored: stored,
        loadAverage: os.loadavg().map(round),
        cpus: os.cpus().length,
        pages,
        target: `p95 < ${P95_TARGET_MS} ms, page < ${PAGE_TARGET_BYTES} bytes`,
        targetMet: breakerPages.every(([, v]) => v.p95 < P95_TARGET_MS && v.bytes < PAGE_TARGET_BYTES),
      },
      null,
      2,
    ),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
