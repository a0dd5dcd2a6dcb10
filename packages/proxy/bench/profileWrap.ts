/**
 * `npx tsx bench/profileWrap.ts` in packages/proxy (after a build): where a forwarded call's time goes in `wrap`.
 * Runs `mcp-resilience wrap` with `--cpu-prof` in front of server-everything, calls `echo` PROFILE_CALLS times at
 * PROFILE_RATE calls/s (as the bench) after 200 warm-up calls, and prints for the measured calls only the proxy's
 * self time by part (Node streams and timers, the SDK's protocol layers, zod, the resilience pipeline,
 * OpenTelemetry, the proxy's own code, JSON, GC) and the functions with the most self time, in µs per call.
 * The profiler samples wall time: a write to a pipe that wakes the reader counts while the writer waits for a core
 * (`writeUtf8String`), so on a loaded machine the CPU time of the bench (/proc) is the number to compare.
 * Node flags for the proxy go after `--`; PROFILE_CLI profiles another build's `dist/cli.js`, PROFILE_FLOOR=1 the
 * line passthrough.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectStdio, EVERYTHING, echoOpenLoop } from './echoCalls.js';

const here = dirname(fileURLToPath(import.meta.url));
const CALLS = Number(process.env.PROFILE_CALLS ?? 2000);
const WARMUP = 200;
const RATE = Number(process.env.PROFILE_RATE ?? 100);
const cli = process.env.PROFILE_CLI ?? join(here, '..', 'dist', 'cli.js');
/** PROFILE_FLOOR=1: profile the bare line passthrough (the floor of any stdio proxy) instead, for reference. */
const proxyArgs =
  process.env.PROFILE_FLOOR === '1' ? [join(here, 'linePassthrough.mjs')] : [cli, 'wrap', '--'];

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  /** Monotonic clock, µs (the clock of `process.hrtime`). */
  readonly startTime: number;
}

/** Which part of the process a function belongs to, by its script. */
const PARTS: readonly [string, (url: string, name: string) => boolean][] = [
  ['GC', (url, name) => url === '' && name === '(garbage collector)'],
  ['idle', (url, name) => url === '' && (name === '(idle)' || name === '(program)')],
  ['JSON parse/stringify (V8)', (url, name) => url === '' && (name === 'parse' || name === 'stringify')],
  ['zod', (url) => url.includes('/node_modules/zod/')],
  ['SDK protocol (Client, Server, stdio transports)', (url) => url.includes('@modelcontextprotocol/sdk/')],
  ['OpenTelemetry', (url) => url.includes('@opentelemetry/')],
  [
    'resilience pipeline (middleware)',
    (url) => url.includes('/packages/middleware/') || url.includes('@mcp-resilience/middleware'),
  ],
  ['proxy', (url) => url.includes('/packages/proxy/')],
  ['Node streams, net, timers, events', (url) => url.startsWith('node:')],
  ['other (V8 builtins, other modules)', () => true],
];

function partOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  return (PARTS.find(([, test]) => test(url, functionName)) as [string, unknown])[0];
}

/** Self time (ms) of each node after `fromUs` (the start, warm-up and the end left out), from the samples. */
function selfTimes(profile: Profile, fromUs: number, toUs: number): Map<number, number> {
  const self = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at >= fromUs && at <= toUs) self.set(id, (self.get(id) ?? 0) + delta / 1000);
  });
  return self;
}

/** The monotonic clock in µs, as the profile's timestamps. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Runs the calls; resolves with the window of the measured calls (after WARMUP of them) on the monotonic clock. */
async function run(nodeFlags: string[], dir: string): Promise<[number, number]> {
  const args = [
    `--cpu-prof`,
    `--cpu-prof-dir=${dir}`,
    ...nodeFlags,
    ...proxyArgs,
    process.execPath,
    ...EVERYTHING,
  ];
  const { client } = await connectStdio(args);
  await echoOpenLoop(client, { calls: 0, rate: RATE, warmup: WARMUP });
  const from = monotonicUs();
  await echoOpenLoop(client, { calls: CALLS, rate: RATE, warmup: 0 });
  const to = monotonicUs();
  await client.close();
  return [from, to];
}

function report(profile: Profile, [from, to]: [number, number]): string {
  const self = selfTimes(profile, from, to);
  const byPart = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const node of profile.nodes) {
    const ms = self.get(node.id) ?? 0;
    const part = partOf(node);
    byPart.set(part, (byPart.get(part) ?? 0) + ms);
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^.*packages\//, '')}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + ms);
  }
  const busy = [...byPart].filter(([part]) => part !== 'idle').reduce((sum, [, ms]) => sum + ms, 0);
  const perCall = (ms: number) => `${((ms / CALLS) * 1000).toFixed(0)} µs/call`;
  const pct = (ms: number) => `${((ms / busy) * 100).toFixed(1)}%`;
  const lines = [`busy (not idle): ${perCall(busy)} over ${CALLS} calls`, '', 'by part:'];
  for (const [part, ms] of [...byPart].sort((a, b) => b[1] - a[1])) {
    if (part !== 'idle') lines.push(`  ${pct(ms).padStart(6)}  ${perCall(ms).padStart(13)}  ${part}`);
  }
  lines.push('', 'top self time:');
  for (const [name, ms] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    if (!name.startsWith('(idle)') && !name.startsWith('(program)'))
      lines.push(`  ${pct(ms).padStart(6)}  ${name}`);
  }
  return lines.join('\n');
}

const dir = mkdtempSync(join(tmpdir(), 'proxy-profile-'));
const measured = await run(
  process.argv.slice(2).filter((a) => a !== '--'),
  dir,
);
// The profile is written when the proxy exits, shortly after its stdin closed.
for (let i = 0; i < 100 && readdirSync(dir).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
// The largest profile: a process that re-executed itself (keepYoungGenerationSmall) leaves a tiny one first.
const file = readdirSync(dir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size)[0];
if (file === undefined) throw new Error(`no profile written in ${dir}`);
console.log(`${join(dir, file)}\n`);
console.log(report(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile, measured));
