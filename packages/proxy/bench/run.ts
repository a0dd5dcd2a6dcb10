/**
 * `npm run bench` in packages/proxy: the latency the proxy adds per call and its memory, against a direct
 * connection and against punkpeye's `mcp-proxy` in front of the same stdio server, in the same run.
 *
 * - stdio: an SDK v1 client calls `echo` of @modelcontextprotocol/server-everything directly, through a bare line
 *   passthrough (the floor of any proxy: parse and re-serialise each line, `linePassthrough.mjs`), then through
 *   `mcp-resilience wrap`, at a fixed rate (open loop: a call starts every 1000/rate ms whatever the others do);
 * - HTTP: the same server behind `mcp-resilience gateway` and behind `mcp-proxy`, over Streamable HTTP, at the
 *   same rate, then closed loop with BENCH_CONCURRENCY callers (throughput);
 * - RSS of each proxy process (not its children) after its calls, CPU time of each proxy process per call, and
 *   the RSS of a gateway with 10 upstreams, as started (the CLI keeps V8's young generation at 1 MiB semi-spaces)
 *   and with V8's default young generation (`NODE_OPTIONS=--max-semi-space-size=0`, the opt-out), the same for
 *   `wrap`.
 *
 * Options (env): BENCH_RATE (calls/s, default 100), BENCH_CALLS (per scenario, default 500),
 * BENCH_CONCURRENCY (default 100), BENCH_THROUGHPUT_CALLS (default 3000), BENCH_ROUNDS (interleaved rounds of
 * the stdio paths, default 3), BENCH_BASELINE_CLI (another build's dist/cli.js, one more stdio path) and
 * BENCH_BASELINE_NAME (its label).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectStdio, EVERYTHING, echoOpenLoop } from './echoCalls.js';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const RATE = Number(process.env.BENCH_RATE ?? 100);
const CALLS = Number(process.env.BENCH_CALLS ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 100);
const THROUGHPUT_CALLS = Number(process.env.BENCH_THROUGHPUT_CALLS ?? 3000);
const WARMUP = 50;
/** Rounds of the stdio paths, interleaved (a load spike then hits every path, not one). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Another build's `dist/cli.js` (for example the previous commit's), measured as one more stdio path. */
const BASELINE_CLI = process.env.BENCH_BASELINE_CLI;
/** What the baseline build is, for its row (default: its path). */
const BASELINE_NAME = process.env.BENCH_BASELINE_NAME ?? BASELINE_CLI;
/** V8's own semi-space sizing: a semi-space flag the user set, so the CLI keeps it (the reference of before). */
const V8_YOUNG = '--max-semi-space-size=0';
const cli = join(here, '..', 'dist', 'cli.js');
const everything = [...EVERYTHING];
const passthrough = join(here, 'linePassthrough.mjs');
const mcpProxy = join(dirname(require.resolve('mcp-proxy/package.json')), 'dist/bin/mcp-proxy.mjs');

interface Row {
  readonly name: string;
  readonly p50: number;
  readonly p99: number;
  readonly rssMb?: number;
  /** CPU time (user + system) of the proxy process per call, ms. */
  readonly cpuMs?: number;
  readonly failed: number;
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;

/** Failed calls of the last {@link measure} (refused, or an `isError` result): reported, never hidden. */
let failures = 0;

/** Calls `echo` CALLS times at RATE calls/s (after a warm-up) and returns the latencies in ms, sorted. */
async function measure(client: Client): Promise<number[]> {
  const latencies: number[] = [];
  failures = 0;
  await echoOpenLoop(client, { calls: CALLS, rate: RATE, warmup: WARMUP }, (call, t0) =>
    call.then(
      (result) => {
        if (result.isError === true) failures++;
        latencies.push(performance.now() - t0);
      },
      () => {
        failures++;
      },
    ),
  );
  return latencies.sort((a, b) => a - b);
}

/** CPU time (user + system, ms) a process has used so far, from /proc (clock ticks of 10 ms). */
function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return line ? Number(line.split(/\s+/)[1]) / 1024 : undefined;
}

/** One run of a stdio path: its latencies, the proxy process's CPU per call, its RSS. */
interface StdioSample {
  readonly latencies: number[];
  readonly cpuMs: number;
  readonly rssMb: number | undefined;
  readonly failed: number;
}

async function stdioSample(args: string[], isProxy: boolean): Promise<StdioSample> {
  const { client, transport } = await connectStdio(args);
  const pid = transport.pid ?? undefined;
  const cpu0 = cpuMs(pid);
  const latencies = await measure(client);
  const cpu = (cpuMs(pid) - cpu0) / (CALLS + WARMUP);
  const rss = isProxy ? rssMb(pid) : undefined;
  await client.close();
  return { latencies, cpuMs: cpu, rssMb: rss, failed: failures };
}

/** The runs of one path, rounds interleaved with the other paths': their latencies merged, CPU and RSS averaged. */
function stdioRow(name: string, samples: readonly StdioSample[]): Row {
  const latencies = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const mean = (values: readonly (number | undefined)[]) =>
    values.every((v) => v !== undefined)
      ? values.reduce((a, b) => a + (b ?? 0), 0) / values.length
      : undefined;
  const rss = mean(samples.map((s) => s.rssMb));
  const isProxy = name !== 'direct';
  return {
    name,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ...(rss ? { rssMb: rss } : {}),
    ...(isProxy ? { cpuMs: mean(samples.map((s) => s.cpuMs)) } : {}),
    failed: samples.reduce((sum, s) => sum + s.failed, 0),
  };
}

/** The stdio paths: direct, the floor, wrap, wrap with V8's young generation, and a baseline build when given. */
function stdioPaths(): [string, string[]][] {
  const wrap = (cliPath: string, flags: string[] = []) => [
    ...flags,
    cliPath,
    'wrap',
    '--',
    process.execPath,
    ...everything,
  ];
  const paths: [string, string[]][] = [
    ['direct', everything],
    ['line passthrough (floor)', [passthrough, process.execPath, ...everything]],
    ['wrap', wrap(cli)],
    [`wrap ${V8_YOUNG} (V8's young generation)`, wrap(cli, [V8_YOUNG])],
  ];
  if (BASELINE_CLI) paths.push([`wrap, baseline: ${BASELINE_NAME}`, wrap(BASELINE_CLI)]);
  return paths;
}

async function stdioRows(): Promise<Row[]> {
  const paths = stdioPaths();
  const samples = paths.map((): StdioSample[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [name, args]] of paths.entries()) {
      samples[i]?.push(await stdioSample(args, name !== 'direct'));
    }
  }
  return paths.map(([name], i) => stdioRow(name, samples[i] ?? []));
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Starts a process and resolves once `ready` matches its output (stdout or stderr). */
function start(args: string[], ready: RegExp, env: NodeJS.ProcessEnv = process.env): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += String(chunk);
      if (ready.test(seen)) resolve(child);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`${args.join(' ')} exited (${code}): ${seen.slice(-500)}`)),
    );
  });
}

/** Connects, retrying while the server is not listening yet (up to 30 s). */
async function connectHttp(url: string): Promise<Client> {
  const started = Date.now();
  for (;;) {
    const client = new Client({ name: 'bench', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      return client;
    } catch (error) {
      await client.close().catch(() => {});
      if (Date.now() - started > 30_000) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

interface Throughput {
  readonly name: string;
  readonly callsPerSecond: number;
  readonly failed: number;
  readonly cpuMs: number;
}

/** THROUGHPUT_CALLS calls by CONCURRENCY callers in a closed loop on one session. */
async function throughput(name: string, client: Client, pid: number | undefined): Promise<Throughput> {
  let next = 0;
  let ok = 0;
  const cpu0 = cpuMs(pid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < THROUGHPUT_CALLS) {
        const result = await client
          .callTool({ name: 'echo', arguments: { message: 'x' } })
          .catch(() => undefined);
        if (result && result.isError !== true) ok++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    name,
    callsPerSecond: ok / seconds,
    failed: THROUGHPUT_CALLS - ok,
    cpuMs: (cpuMs(pid) - cpu0) / THROUGHPUT_CALLS,
  };
}

async function httpRow(name: string, child: ChildProcess, url: string): Promise<[Row, Throughput]> {
  const client = await connectHttp(url);
  const cpu0 = cpuMs(child.pid);
  const latencies = await measure(client);
  const cpu = (cpuMs(child.pid) - cpu0) / (CALLS + WARMUP);
  const rss = rssMb(child.pid);
  const closedLoop = await throughput(name, client, child.pid);
  await client.close();
  child.kill('SIGTERM');
  const row = {
    name,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ...(rss ? { rssMb: rss } : {}),
    cpuMs: cpu,
    failed: failures,
  };
  return [row, closedLoop];
}

async function gatewayWithTen(env: NodeJS.ProcessEnv): Promise<number | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-bench-'));
  const servers = Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => [`s${i}`, { command: process.execPath, args: everything }]),
  );
  writeFileSync(join(dir, 'ten.json'), JSON.stringify({ mcpServers: servers }));
  const port = await freePort();
  const gateway = await start(
    [cli, 'gateway', '--config', join(dir, 'ten.json'), '--port', String(port)],
    /listening/,
    env,
  );
  const clients = await Promise.all(
    Object.keys(servers).map(async (name) => {
      const client = new Client({ name: 'bench', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/${name}/mcp`)),
      );
      for (let i = 0; i < 20; i++) await client.callTool({ name: 'echo', arguments: { message: 'x' } });
      return client;
    }),
  );
  const rss = rssMb(gateway.pid);
  await Promise.all(clients.map((c) => c.close()));
  gateway.kill('SIGTERM');
  return rss;
}

async function main() {
  const rows: Row[] = [];
  const closedLoop: Throughput[] = [];
  rows.push(...(await stdioRows()));
  const dir = mkdtempSync(join(tmpdir(), 'proxy-bench-'));
  writeFileSync(
    join(dir, 'one.json'),
    JSON.stringify({ mcpServers: { e: { command: process.execPath, args: everything } } }),
  );
  const gwPort = await freePort();
  const gateway = await start(
    [cli, 'gateway', '--config', join(dir, 'one.json'), '--port', String(gwPort)],
    /listening/,
  );
  const [gwRow, gwLoop] = await httpRow('gateway (HTTP)', gateway, `http://127.0.0.1:${gwPort}/e/mcp`);
  const mpPort = await freePort();
  const peer = spawn(
    process.execPath,
    [mcpProxy, '--host', '127.0.0.1', '--port', String(mpPort), '--', process.execPath, ...everything],
    { stdio: 'ignore' },
  );
  const [mpRow, mpLoop] = await httpRow('mcp-proxy 6.7 (HTTP)', peer, `http://127.0.0.1:${mpPort}/mcp`);
  rows.push(gwRow, mpRow);
  closedLoop.push(gwLoop, mpLoop);
  const tenRss = await gatewayWithTen(process.env);
  const tenRssV8 = await gatewayWithTen({ ...process.env, NODE_OPTIONS: V8_YOUNG });
  const text = report(rows, closedLoop, tenRss, tenRssV8);
  console.log(text);
  writeFileSync(join(here, 'results.txt'), `${text}\n`);
}

/** A p99 the machine's load spikes decide (the direct path's p99 over 10x its p50) is not a verdict on the proxy. */
function p99Verdict(wrap: Row, direct: Row): string {
  if (direct.p99 > 10 * direct.p50) {
    return `not measurable in this run (the direct path's own p99 is ${direct.p99.toFixed(1)} ms: load spikes)`;
  }
  return wrap.p99 - direct.p99 <= 2 ? 'met' : 'MISSED';
}

/** Ratios of `wrap` against the references measured in the same run (absolute times drift with the load). */
function sameRun(wrap: Row, direct: Row, floor: Row, peer: Row): string {
  const added = (r: Row) => r.p50 - direct.p50;
  const ratio = (a: number | undefined, b: number | undefined) =>
    a !== undefined && b !== undefined && b > 0 ? `${(a / b).toFixed(2)}x` : 'n/a';
  return [
    `- same run: wrap p50 ${ratio(wrap.p50, direct.p50)} direct's; added p50 ${ratio(added(wrap), added(floor))} the floor's,`,
    `${ratio(added(wrap), added(peer))} mcp-proxy's (HTTP: ${added(peer).toFixed(2)} ms); CPU per call ${wrap.cpuMs?.toFixed(2)} ms,`,
    `${ratio(wrap.cpuMs, floor.cpuMs)} the floor's, ${ratio(wrap.cpuMs, peer.cpuMs)} mcp-proxy's`,
  ].join(' ');
}

function report(rows: Row[], closedLoop: Throughput[], tenRss?: number, tenRssV8?: number): string {
  const direct = rows[0] as Row;
  const wrap = rows.find((r) => r.name === 'wrap');
  const floor = rows.find((r) => r.name.startsWith('line passthrough'));
  const peer = rows.find((r) => r.name.startsWith('mcp-proxy'));
  const [gw, mp] = closedLoop;
  const fmt = (n: number) => n.toFixed(2);
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const lines = [
    `# proxy bench: ${CALLS} calls of echo (server-everything) at ${RATE} calls/s, after ${WARMUP} warm-up calls; stdio paths: ${ROUNDS} interleaved rounds, merged`,
    '',
    '| path | p50 ms | p99 ms | added p50 ms | added p99 ms | CPU ms/call (proxy process) | RSS MB (proxy process) | failed |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r === direct ? '' : fmt(r.p50 - direct.p50)} | ${r === direct ? '' : fmt(r.p99 - direct.p99)} | ${r.cpuMs === undefined ? '' : fmt(r.cpuMs)} | ${r.rssMb ? r.rssMb.toFixed(0) : ''} | ${r.failed} |`,
    ),
    '',
    `Closed loop, ${CONCURRENCY} concurrent callers on one session, ${THROUGHPUT_CALLS} calls:`,
    '',
    '| path | calls/s | failed | CPU ms/call (proxy process) |',
    '| --- | --- | --- | --- |',
    ...closedLoop.map(
      (t) => `| ${t.name} | ${t.callsPerSecond.toFixed(0)} | ${t.failed} | ${fmt(t.cpuMs)} |`,
    ),
    '',
    `gateway with 10 stdio upstreams (10 sessions, 20 calls each): RSS ${tenRss?.toFixed(0) ?? '?'} MB; with NODE_OPTIONS=${V8_YOUNG} (V8's young generation): ${tenRssV8?.toFixed(0) ?? '?'} MB`,
    '',
    'Targets:',
    wrap
      ? `- stdio added p50 <= 0.5 ms: ${fmt(wrap.p50 - direct.p50)} ms, ${verdict(wrap.p50 - direct.p50 <= 0.5)}; added p99 <= 2 ms: ${fmt(wrap.p99 - direct.p99)} ms, ${p99Verdict(wrap, direct)}`
      : '',
    wrap && floor && peer ? sameRun(wrap, direct, floor, peer) : '',
    gw && mp
      ? `- gateway throughput no worse than mcp-proxy: ${gw.callsPerSecond.toFixed(0)} vs ${mp.callsPerSecond.toFixed(0)} calls/s (${((gw.callsPerSecond / mp.callsPerSecond) * 100).toFixed(0)}%), ${verdict(gw.callsPerSecond >= mp.callsPerSecond * 0.97 && gw.failed === 0)}; CPU per call ${fmt(gw.cpuMs)} vs ${fmt(mp.cpuMs)} ms`
      : '',
    `- RSS <= 100 MB with 10 upstreams: ${tenRss?.toFixed(0)} MB ${verdict((tenRss ?? 999) <= 100)} (with V8's young generation: ${tenRssV8?.toFixed(0)} MB)`,
    '',
    'Added latency on HTTP includes the HTTP hop itself (the reference is the direct stdio connection).',
    'The line passthrough is the floor of any stdio proxy on this machine: two more pipe hops and one JSON parse',
    'and serialisation per message. Throughput within 3% counts as no worse (run-to-run noise on a shared machine).',
  ];
  return lines.join('\n');
}

await main();
process.exit(0);
