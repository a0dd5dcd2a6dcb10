/*
 * npx tsx bench/attacks.ts: the hostile exports of issue #22 against a dashboard in a process of its own, started
 * with --max-old-space-size=768 (a typical container). For each attack: the answer and its time, and the slowest
 * answer of /api/health and /api/v1/summary probed every 25 ms while it runs; then the target's peak RSS
 * (VmHWM). A valid export of 1,000 spans is the reference measured in the same run. Results go to
 * bench-attacks.json and a table on stdout. Targets: every attack answered < 500 ms with the probes answering
 * throughout, peak RSS < 512 MiB.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ExportTraceServiceRequest } from '../lib/otlp/schema';
import {
  type AttackBody,
  emptyAttributes,
  emptyJsonPoints,
  emptyProtobufPoints,
  hugeAsInt,
  longNameUntimedPoints,
  prototypeKeys,
  wideResourceSeries,
} from '../test/support/attack-bodies';

const APP_DIR = path.resolve(import.meta.dirname, '..');
const ANSWER_TARGET_MS = 500;
const RSS_TARGET_MIB = 512;
const log = (...a: unknown[]) => console.error('[attacks]', ...a);
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

function startTarget(dataDir: string) {
  const child = spawn(
    process.execPath,
    ['--max-old-space-size=768', '--import', 'tsx', path.join(APP_DIR, 'bench', 'attack-target.ts')],
    { cwd: APP_DIR, env: { ...process.env, DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stderr.on('data', (c) => {
    out += c;
  });
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c;
      const m = /listening (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`target exited (${code}): ${out}`)));
  });
  return { child, url, output: () => out };
}

/** Peak resident set of a process (VmHWM), in MiB. */
function peakRssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  return round(kb / 1024);
}

/** Probes `paths` back to back (25 ms apart) until `stop` resolves; returns the slowest answer and any failure. */
async function probe(base: string, stop: Promise<unknown>) {
  let done = false;
  void stop.finally(() => {
    done = true;
  });
  let slowest = 0;
  let probes = 0;
  const failures: string[] = [];
  while (!done) {
    for (const p of ['/api/health', '/api/v1/summary']) {
      const t = performance.now();
      try {
        const r = await fetch(`${base}${p}`, { signal: AbortSignal.timeout(10_000) });
        await r.arrayBuffer();
        if (r.status !== 200) failures.push(`${p} ${r.status}`);
      } catch (error) {
        failures.push(`${p} ${(error as Error).message}`);
      }
      slowest = Math.max(slowest, performance.now() - t);
      probes++;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return { slowest: round(slowest), probes, failures };
}

async function send(base: string, a: AttackBody) {
  const t = performance.now();
  const r = await fetch(`${base}/v1/${a.signal}`, {
    method: 'POST',
    headers: { 'content-type': a.contentType, 'content-encoding': 'gzip' },
    body: new Uint8Array(a.body),
  });
  const body = Buffer.from(await r.arrayBuffer());
  const ms = performance.now() - t;
  const text = a.contentType === 'application/json' ? body.toString('utf8') : body.toString('latin1');
  return {
    status: r.status,
    ms,
    answer: text
      .replace(/[^\x20-\x7e…]+/g, ' ')
      .trim()
      .slice(0, 140),
  };
}

/** The reference: a valid traces export of 1,000 attempt spans (protobuf + gzip). */
function referenceExport(): AttackBody {
  const now = Date.now();
  const spans = Array.from({ length: 1000 }, (_, i) => ({
    traceId: randomBytes(16),
    spanId: randomBytes(8),
    name: 'tools/call get',
    kind: 3,
    startTimeUnixNano: BigInt(now - 1000 + i) * 1_000_000n,
    endTimeUnixNano: BigInt(now - 990 + i) * 1_000_000n,
    attributes: [
      { key: 'mcp.resilience.server', value: { stringValue: 'weather' } },
      { key: 'mcp.resilience.attempt', value: { intValue: 2 } },
    ],
    status: { code: 2, message: 'HTTP 503' },
  }));
  const raw = Buffer.from(
    ExportTraceServiceRequest.encode(
      ExportTraceServiceRequest.fromObject({ resourceSpans: [{ scopeSpans: [{ spans }] }] }),
    ).finish(),
  );
  return {
    name: 'reference: 1,000 valid attempt spans',
    signal: 'traces',
    contentType: 'application/x-protobuf',
    body: gzipSync(raw),
    rawBytes: raw.length,
  };
}

interface Row {
  readonly attack: string;
  readonly gzipBytes: number;
  readonly decompressedBytes: number;
  readonly status: number;
  readonly worstMs: number;
  readonly probeSlowestMs: number;
  readonly probes: number;
  readonly probeFailures: number;
  readonly dbGrowthKiB: number;
  readonly answer: string;
}

const dbBytes = (dir: string) =>
  ['dashboard.db', 'dashboard.db-wal']
    .map((f) => path.join(dir, f))
    .filter((f) => fs.existsSync(f))
    .reduce((s, f) => s + fs.statSync(f).size, 0);

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-attacks-'));
  const target = startTarget(dataDir);
  const base = await target.url;
  const now = Date.now();
  log('building the attack bodies…');
  const attacks: AttackBody[] = [
    referenceExport(),
    emptyProtobufPoints(10_400_000),
    emptyJsonPoints(6_900_000),
    emptyAttributes(5_000_000),
    longNameUntimedPoints(500_000, 20_000),
    longNameUntimedPoints(1_000_000, 50_000),
    longNameUntimedPoints(200_000, 20_000),
    emptyJsonPoints(50_000),
    hugeAsInt(19_000_000, now),
    wideResourceSeries(128, 2048, 400, now),
    prototypeKeys(50, 50, now),
  ];
  const rows: Row[] = [];
  for (const a of attacks) {
    const dbBefore = dbBytes(dataDir);
    let worst = { status: 0, ms: 0, answer: '' };
    let stop!: () => void;
    const stopped = new Promise<void>((r) => {
      stop = r;
    });
    const probing = probe(base, stopped);
    for (let i = 0; i < 3; i++) {
      const r = await send(base, a);
      if (r.ms >= worst.ms) worst = r;
    }
    stop();
    const p = await probing;
    rows.push({
      attack: a.name,
      gzipBytes: a.body.length,
      decompressedBytes: a.rawBytes,
      status: worst.status,
      worstMs: round(worst.ms),
      probeSlowestMs: p.slowest,
      probes: p.probes,
      probeFailures: p.failures.length,
      dbGrowthKiB: round((dbBytes(dataDir) - dbBefore) / 1024),
      answer: worst.answer,
    });
    log(
      `${a.name}: ${worst.status} in ${round(worst.ms)} ms (probes: slowest ${p.slowest} ms, ${p.failures.length} failed)`,
    );
  }
  const peak = peakRssMiB(target.child.pid!);
  target.child.kill('SIGTERM');
  await new Promise((r) => target.child.once('exit', r));
  fs.rmSync(dataDir, { recursive: true, force: true });
  const reference = rows[0]!.worstMs;
  const attacksOnly = rows.slice(1);
  const results = {
    date: new Date().toISOString(),
    machine: { node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? '?' },
    heap: '--max-old-space-size=768',
    referenceMs: reference,
    attacks: rows.map((r) => ({ ...r, vsReference: round(r.worstMs / reference, 2) })),
    peakRssMiB: peak,
    targets: {
      answered: `< ${ANSWER_TARGET_MS} ms`,
      answeredMet: attacksOnly.every((r) => r.worstMs < ANSWER_TARGET_MS),
      probesMet: attacksOnly.every((r) => r.probeFailures === 0 && r.probeSlowestMs < ANSWER_TARGET_MS),
      rss: `< ${RSS_TARGET_MIB} MiB`,
      rssMet: peak < RSS_TARGET_MIB,
    },
  };
  fs.writeFileSync(path.join(APP_DIR, 'bench-attacks.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log('\nmcp-resilience dashboard attacks (issue #22)');
  console.table(
    Object.fromEntries(
      results.attacks.map((r) => [
        r.attack,
        {
          status: r.status,
          'worst ms': r.worstMs,
          'x ref': r.vsReference,
          'probe max ms': r.probeSlowestMs,
          'db KiB': r.dbGrowthKiB,
        },
      ]),
    ),
  );
  console.log(
    `peak RSS of the target: ${peak} MiB (target < ${RSS_TARGET_MIB}); targets met: ${JSON.stringify(results.targets)}`,
  );
  console.log('written to bench-attacks.json');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
