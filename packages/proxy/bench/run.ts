/**
 * `npm run bench` in packages/proxy: the latency the proxy adds per call and its memory, against a direct
 * connection and against punkpeye's `mcp-proxy` in front of the same stdio server, in the same run.
 *
 * - stdio: an SDK v1 client calls `echo` of @modelcontextprotocol/server-everything directly, then through
 *   `mcp-resilience wrap`, at a fixed rate (open loop: a call starts every 1000/rate ms whatever the others do);
 * - HTTP: the same server behind `mcp-resilience gateway` and behind `mcp-proxy`, over Streamable HTTP;
 * - RSS of each proxy process (not its children) after its calls, and of a gateway with 10 upstreams.
 *
 * Options (env): BENCH_RATE (calls/s, default 100), BENCH_CALLS (per scenario, default 500).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const RATE = Number(process.env.BENCH_RATE ?? 100);
const CALLS = Number(process.env.BENCH_CALLS ?? 500);
const WARMUP = 50;
const cli = join(here, '..', 'dist', 'cli.js');
const everything = [
  join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js'),
  'stdio',
];
const mcpProxy = join(dirname(require.resolve('mcp-proxy/package.json')), 'dist/bin/mcp-proxy.mjs');

interface Row {
  readonly name: string;
  readonly p50: number;
  readonly p99: number;
  readonly rssMb?: number;
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;

/** Calls `echo` CALLS times at RATE calls/s (after a warm-up) and returns the latencies in ms, sorted. */
async function measure(client: Client): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await client.callTool({ name: 'echo', arguments: { message: 'warm' } });
  const latencies: number[] = [];
  const interval = 1000 / RATE;
  const started = performance.now();
  const calls: Promise<void>[] = [];
  for (let i = 0; i < CALLS; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const t0 = performance.now();
    calls.push(
      client.callTool({ name: 'echo', arguments: { message: `m${i}` } }).then(() => {
        latencies.push(performance.now() - t0);
      }),
    );
  }
  await Promise.all(calls);
  return latencies.sort((a, b) => a - b);
}

function rssMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return line ? Number(line.split(/\s+/)[1]) / 1024 : undefined;
}

async function stdioRow(name: string, command: string, args: string[]): Promise<Row> {
  const transport = new StdioClientTransport({ command, args, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  const latencies = await measure(client);
  const rss = name === 'direct' ? undefined : rssMb(transport.pid ?? undefined);
  await client.close();
  return {
    name,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ...(rss ? { rssMb: rss } : {}),
  };
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
function start(args: string[], ready: RegExp): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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

async function httpRow(name: string, child: ChildProcess, url: string): Promise<Row> {
  const client = await connectHttp(url);
  const latencies = await measure(client);
  const rss = rssMb(child.pid);
  await client.close();
  child.kill('SIGTERM');
  return {
    name,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ...(rss ? { rssMb: rss } : {}),
  };
}

async function gatewayWithTen(): Promise<number | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-bench-'));
  const servers = Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => [`s${i}`, { command: process.execPath, args: everything }]),
  );
  writeFileSync(join(dir, 'ten.json'), JSON.stringify({ mcpServers: servers }));
  const port = await freePort();
  const gateway = await start(
    [cli, 'gateway', '--config', join(dir, 'ten.json'), '--port', String(port)],
    /listening/,
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
  rows.push(await stdioRow('direct', process.execPath, everything));
  rows.push(await stdioRow('wrap', process.execPath, [cli, 'wrap', '--', process.execPath, ...everything]));
  const gwPort = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'proxy-bench-'));
  writeFileSync(
    join(dir, 'one.json'),
    JSON.stringify({ mcpServers: { e: { command: process.execPath, args: everything } } }),
  );
  const gateway = await start(
    [cli, 'gateway', '--config', join(dir, 'one.json'), '--port', String(gwPort)],
    /listening/,
  );
  rows.push(await httpRow('gateway (HTTP)', gateway, `http://127.0.0.1:${gwPort}/e/mcp`));
  const mpPort = await freePort();
  const peer = spawn(
    process.execPath,
    [mcpProxy, '--host', '127.0.0.1', '--port', String(mpPort), '--', process.execPath, ...everything],
    { stdio: 'ignore' },
  );
  rows.push(await httpRow('mcp-proxy 6.7 (HTTP)', peer, `http://127.0.0.1:${mpPort}/mcp`));
  const tenRss = await gatewayWithTen();

  const direct = rows[0] as Row;
  const fmt = (n: number) => n.toFixed(2);
  const lines = [
    `# proxy bench: ${CALLS} calls of echo (server-everything) at ${RATE} calls/s, after ${WARMUP} warm-up calls`,
    '',
    '| path | p50 ms | p99 ms | added p50 ms | added p99 ms | RSS MB (proxy process) |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r === direct ? '' : fmt(r.p50 - direct.p50)} | ${r === direct ? '' : fmt(r.p99 - direct.p99)} | ${r.rssMb ? r.rssMb.toFixed(0) : ''} |`,
    ),
    '',
    `gateway with 10 stdio upstreams (10 sessions, 20 calls each): RSS ${tenRss?.toFixed(0) ?? '?'} MB (target <= 100)`,
    '',
    'Targets: added p50 <= 0.5 ms and p99 <= 2 ms on stdio (wrap vs direct); gateway no worse than mcp-proxy.',
    'Added latency on HTTP includes the HTTP hop itself (the reference is the direct stdio connection).',
  ];
  const text = lines.join('\n');
  console.log(text);
  writeFileSync(join(here, 'results.txt'), `${text}\n`);
}

await main();
process.exit(0);
