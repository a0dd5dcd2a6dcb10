/**
 * `npx tsx bench/wallBreakdown.ts` in packages/proxy (after a build): where the wall time of one call goes, hop by
 * hop, for the direct connection, the line passthrough (the floor) and `wrap`, and `WALL_BASELINE_CLI` (another
 * build's dist/cli.js) when given. Every Node process of the chain is preloaded with `bench/wallTrace.mjs`, which
 * stamps each pipe chunk's arrival in JS and each write on CLOCK_MONOTONIC; the calls are those of the bench
 * (`echo` at WALL_RATE calls/s, default 100, WALL_CALLS of them, default 500, after 50 warm-up calls), in
 * WALL_ROUNDS interleaved rounds (default 3). Prints, per path, the median (p10-p90) of each segment in µs:
 *
 *   host write → proxy data → proxy write → server data → server write → proxy data → proxy write → host data
 *
 * and the number of writes and GC pauses per call in the proxy. The tracer's own cost (a regex per chunk) is the
 * same on every path.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { connectStdio, EVERYTHING, echoOpenLoop } from './echoCalls.js';

const here = dirname(fileURLToPath(import.meta.url));
const RATE = Number(process.env.WALL_RATE ?? 100);
const CALLS = Number(process.env.WALL_CALLS ?? 500);
const ROUNDS = Number(process.env.WALL_ROUNDS ?? 3);
const WARMUP = 50;
const tracer = join(here, 'wallTrace.mjs');
const cli = process.env.WALL_CLI ?? join(here, '..', 'dist', 'cli.js');
const everything = [...EVERYTHING];

process.env.WALL_TRACE_ROLE = 'host';
const root = mkdtempSync(join(tmpdir(), 'wall-'));
process.env.WALL_TRACE_DIR = root;
await import(pathToFileURL(tracer).href);
delete process.env.WALL_TRACE_ROLE;

interface Event {
  readonly t: number;
  readonly after?: number;
  /** The process's CPU time (µs), involuntary context switches and minor page faults so far (getrusage). */
  readonly run?: number;
  readonly preempted?: number;
  readonly faults?: number;
  readonly op: 'write' | 'data' | 'gc' | 'mark';
  /** A layer mark's name (`Upstream.request>`: entered; `<`: its promise settled). */
  readonly name?: string;
  readonly on?: 'stdin' | 'stdout' | 'pipe';
  readonly kind?: 'req' | 'res';
  readonly call?: number;
  readonly ns?: number;
  readonly gc?: number;
}

const paths: [string, string[]][] = [
  ['direct', everything],
  ['line passthrough (floor)', [join(here, 'linePassthrough.mjs'), process.execPath, ...everything]],
  ['wrap', [cli, 'wrap', '--', process.execPath, ...everything]],
];
if (process.env.WALL_BASELINE_CLI) {
  paths.push([
    `wrap, baseline: ${process.env.WALL_BASELINE_NAME ?? process.env.WALL_BASELINE_CLI}`,
    [process.env.WALL_BASELINE_CLI, 'wrap', '--', process.execPath, ...everything],
  ]);
}

/** One run of a path: its calls at RATE, each process's events in `dir`. Returns the measured call numbers. */
async function run(args: string[], dir: string): Promise<void> {
  const env = {
    ...(process.env as Record<string, string>),
    NODE_OPTIONS: `--import=${pathToFileURL(tracer).href}`,
    WALL_TRACE_DIR: dir,
  };
  const { client } = await connectStdio(args, env);
  await echoOpenLoop(client, { calls: CALLS, rate: RATE, warmup: WARMUP });
  // Every process flushes its events every 200 ms.
  await new Promise((resolve) => setTimeout(resolve, 600));
  await client.close();
}

function eventsIn(dir: string, role: string): Event[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith(`${role}-`))
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Event),
    );
}

type Stamp = ((call: number) => number | undefined) & { event?: (call: number) => Event | undefined };

/** The first event of `op` on `on` of `kind` for each call, in `events`. */
function stamps(events: readonly Event[], op: Event['op'], on: Event['on'], kind: Event['kind']): Stamp {
  const byCall = new Map<number, Event>();
  for (const e of events) {
    if (e.op === op && e.on === on && e.kind === kind && e.call !== undefined && !byCall.has(e.call))
      byCall.set(e.call, e);
  }
  const stamp: Stamp = (call) => byCall.get(call)?.t;
  stamp.event = (call) => byCall.get(call);
  return stamp;
}

/** The chain's stamps, in order, for one run (the host's events are this process's, kept in `hostDir`). */
function chain(dir: string, hostEvents: readonly Event[], direct: boolean): [string, Stamp][] {
  const server = eventsIn(dir, 'server');
  const host: [string, Stamp][] = [
    ['host write', stamps(hostEvents, 'write', 'pipe', 'req')],
    ['host data', stamps(hostEvents, 'data', 'pipe', 'res')],
  ];
  const serverSide: [string, Stamp][] = [
    ['server data', stamps(server, 'data', 'stdin', 'req')],
    ['server write', stamps(server, 'write', 'stdout', 'res')],
  ];
  if (direct) return [host[0] as [string, Stamp], ...serverSide, host[1] as [string, Stamp]];
  const proxy = eventsIn(dir, 'proxy');
  return [
    host[0] as [string, Stamp],
    ['proxy data (host)', stamps(proxy, 'data', 'stdin', 'req')],
    ['proxy write (server)', stamps(proxy, 'write', 'pipe', 'req')],
    ...serverSide,
    ['proxy data (server)', stamps(proxy, 'data', 'pipe', 'res')],
    ['proxy write (host)', stamps(proxy, 'write', 'stdout', 'res')],
    host[1] as [string, Stamp],
  ];
}

const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

function describe(values: number[]): string {
  const sorted = values.sort((a, b) => a - b);
  const us = (ns: number) => (ns / 1000).toFixed(0);
  const mean = sorted.reduce((sum, v) => sum + v, 0) / sorted.length / 1000;
  return `${us(quantile(sorted, 0.5)).padStart(5)} (${us(quantile(sorted, 0.1))}-${us(quantile(sorted, 0.9))}; mean ${mean.toFixed(mean < 10 ? 2 : 0)})`;
}

/** Per path: each segment's durations over every complete call of every round. */
const segments = paths.map((): Map<string, number[]> => new Map());
const layers = paths.map((): Map<string, number[]> => new Map());
type Counts = {
  writes: number;
  gcs: number;
  gcNs: number;
  calls: number;
  kinds: Map<number, number[]>;
  onPath: number;
};
const proxyCounts = paths.map(
  (): Counts => ({ writes: 0, gcs: 0, gcNs: 0, calls: 0, kinds: new Map(), onPath: 0 }),
);

/**
 * The proxy's two windows of a call (the host's request read → its write to the server; the server's result
 * read → its write to the host) cut at the first of each layer mark inside them, in order: `into` gets each
 * piece's duration under `window: from → to`.
 */
function layerPieces(
  marks: readonly Event[],
  links: readonly [string, Stamp][],
  call: number,
  into: Map<string, number[]>,
) {
  const at = (name: string) => links.find(([n]) => n === name)?.[1](call);
  const windows: [string, number | undefined, number | undefined][] = [
    ['request', at('proxy data (host)'), at('proxy write (server)')],
    ['result', at('proxy data (server)'), at('proxy write (host)')],
  ];
  for (const [window, start, end] of windows) {
    if (start === undefined || end === undefined) continue;
    let previous = { t: start, name: 'data' };
    const seen = new Set<string>();
    for (const mark of marks) {
      if (mark.t < start || mark.t > end || mark.name === undefined || seen.has(mark.name)) continue;
      seen.add(mark.name);
      push(into, `${window}: ${previous.name} → ${mark.name}`, mark.t - previous.t);
      previous = { t: mark.t, name: mark.name };
    }
    push(into, `${window}: ${previous.name} → write`, end - previous.t);
  }
}

function push(into: Map<string, number[]>, key: string, value: number): void {
  const list = into.get(key) ?? [];
  list.push(value);
  into.set(key, list);
}

/** GC pauses of the proxy that began inside one of the proxy's own segments of a call. */
function gcsOnPath(gcs: readonly Event[], links: readonly [string, Stamp][], call: number): number {
  const at = (name: string) => links.find(([n]) => n === name)?.[1](call) ?? Number.NaN;
  const spans: [number, number][] = [
    [at('proxy data (host)'), at('proxy write (server)')],
    [at('proxy data (server)'), at('proxy write (host)')],
  ];
  return gcs.filter((g) => spans.some(([a, b]) => g.t >= a && g.t <= b)).length;
}

for (let round = 0; round < ROUNDS; round++) {
  for (const [index, [name, args]] of paths.entries()) {
    const dir = mkdtempSync(join(root, `${round}-${index}-`));
    const from = Number(process.hrtime.bigint());
    await run(args, dir);
    // The host's own events: flushed into `root` by this process.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const host = eventsIn(root, 'host').filter((e) => e.t >= from);
    const links = chain(dir, host, name === 'direct');
    const bySegment = segments[index] as Map<string, number[]>;
    for (let call = 0; call < CALLS; call++) {
      const times = links.map(([, stamp]) => stamp(call));
      if (times.some((t) => t === undefined)) continue;
      const t = times as number[];
      for (let i = 1; i < t.length; i++) {
        const [from, fromStamp] = links[i - 1] as [string, Stamp];
        const [to, toStamp] = links[i] as [string, Stamp];
        const key = `${from} → ${to}`;
        const list = bySegment.get(key) ?? [];
        list.push((t[i] as number) - (t[i - 1] as number));
        bySegment.set(key, list);
        // Within one process: the thread's CPU time over the same segment.
        if (from.split(' ')[0] === to.split(' ')[0]) {
          const a = fromStamp.event?.(call);
          const b = toStamp.event?.(call);
          for (const field of ['run', 'preempted', 'faults'] as const) {
            const x = a?.[field];
            const y = b?.[field];
            if (x === undefined || y === undefined) continue;
            const subKey = `${key}    ${from.split(' ')[0]} ${field}`;
            const list2 = bySegment.get(subKey) ?? [];
            // CPU in ns like the wall times; counts ×1000 so that they print as counts (mean shown too).
            list2.push((y - x) * 1000);
            bySegment.set(subKey, list2);
          }
        }
      }
      const total = bySegment.get('total (host write → host data)') ?? [];
      total.push((t[t.length - 1] as number) - (t[0] as number));
      bySegment.set('total (host write → host data)', total);
    }
    if (name !== 'direct') {
      const proxy = eventsIn(dir, 'proxy');
      const counts = proxyCounts[index] as Counts;
      counts.writes += proxy.filter((e) => e.op === 'write' && e.call !== undefined).length;
      // The measured calls only (not the start and warm-up).
      const first = links[0]?.[1](0) ?? from;
      const last = links[links.length - 1]?.[1](CALLS - 1) ?? Number.POSITIVE_INFINITY;
      const gcs = proxy.filter((e) => e.op === 'gc' && e.t >= first && e.t <= last);
      for (const g of gcs) {
        const list = counts.kinds.get(g.gc ?? 0) ?? [];
        list.push(g.ns ?? 0);
        counts.kinds.set(g.gc ?? 0, list);
      }
      for (let call = 0; call < CALLS; call++) counts.onPath += gcsOnPath(gcs, links, call);
      const marks = proxy.filter((e) => e.op === 'mark').sort((a, b) => a.t - b.t);
      if (marks.length > 0) {
        for (let call = 0; call < CALLS; call++)
          layerPieces(marks, links, call, layers[index] as Map<string, number[]>);
      }
      counts.gcs += gcs.length;
      counts.gcNs += gcs.reduce((sum, e) => sum + (e.ns ?? 0), 0);
      counts.calls += CALLS;
    }
    console.error(`round ${round + 1}: ${name} done`);
  }
}

for (const [index, [name]] of paths.entries()) {
  console.log(`\n${name}: median (p10-p90) µs, ${ROUNDS} rounds of ${CALLS} calls at ${RATE}/s`);
  for (const [segment, values] of segments[index] ?? []) {
    console.log(`  ${describe(values)}  ${segment}  [${values.length}]`);
  }
  const counts = proxyCounts[index];
  if (counts && counts.calls > 0) {
    console.log(
      `  proxy: ${(counts.writes / counts.calls).toFixed(2)} tagged writes/call; GC ${(counts.gcs / counts.calls).toFixed(3)} pauses/call, ${(counts.gcNs / counts.calls / 1000).toFixed(1)} µs/call; ${(counts.onPath / counts.calls).toFixed(3)} pauses/call inside the proxy's segments`,
    );
    const pieces = [...(layers[index] ?? [])].filter(([, values]) => values.length >= CALLS / 2);
    if (pieces.length > 0) console.log("  the proxy's windows by layer (first entry of each, in order):");
    for (const [piece, values] of pieces)
      console.log(`    ${describe(values)}  ${piece}  [${values.length}]`);
    for (const [kind, ns] of counts.kinds) {
      console.log(`    GC kind ${kind}: ${ns.length} pauses, ${describe(ns)} µs`);
    }
  }
}
process.exit(0);
