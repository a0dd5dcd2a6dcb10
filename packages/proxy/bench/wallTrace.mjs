// A preload for `bench/wallBreakdown.ts` (`NODE_OPTIONS=--import=<this file>`, with WALL_TRACE_DIR set): in every
// Node process of a stdio chain (the host, the proxy, the server), the time on CLOCK_MONOTONIC
// (`process.hrtime.bigint()`, the same clock in every process of one Linux machine) at which each pipe chunk
// reaches JS (`data`) and each write is made (before and after the call), tagged with the bench call it carries
// (`"message":"m<i>"` in a request, `Echo: m<i>` in a result). Also V8's GC pauses. The events are appended every
// 200 ms to WALL_TRACE_DIR/<role>-<pid>.jsonl (role: host, server or proxy, from the script path). In a `wrap`
// proxy (a dist/cli.js), it also marks when a call enters and leaves each layer (`mark` events): the SDK
// `Server`'s request dispatch, `Upstream.request`, the middleware's `McpCall.run` and `Call.run`, the SDK
// `Client`'s `request`, the child and host transports' `send`. Off unless preloaded: nothing of it is in the
// proxy.
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { PerformanceObserver, performance } from 'node:perf_hooks';

const dir = process.env.WALL_TRACE_DIR;
const script = process.argv[1] ?? '';
const role = process.env.WALL_TRACE_ROLE ?? (script.includes('server-everything') ? 'server' : 'proxy');
const now = () => Number(process.hrtime.bigint());
/**
 * The process's CPU time (user + system, µs, exact: the kernel counts the running thread up to the call), its
 * involuntary context switches (preempted: waiting for a core) and minor page faults, from getrusage.
 */
const sched = () => {
  const u = process.resourceUsage();
  return {
    run: u.userCPUTime + u.systemCPUTime,
    preempted: u.involuntaryContextSwitches,
    faults: u.minorPageFault,
  };
};
/** performance.now() (ms since the time origin, monotonic) to the hrtime clock (ns). */
const perfToNs = now() - performance.now() * 1e6;
let events = [];

const TAG = /(Echo: |"message":")m(\d+)"/;
function tagOf(data) {
  const text =
    typeof data === 'string' ? data : Buffer.isBuffer(data) ? data.toString('latin1', 0, 4096) : '';
  const match = TAG.exec(text);
  if (match === null) return undefined;
  return { kind: match[1] === 'Echo: ' ? 'res' : 'req', call: Number(match[2]) };
}

const stdio = (socket) =>
  socket === process.stdin ? 'stdin' : socket === process.stdout ? 'stdout' : 'pipe';

const write = net.Socket.prototype.write;
net.Socket.prototype.write = function (data, ...rest) {
  const before = now();
  const result = write.call(this, data, ...rest);
  const after = now();
  const tag = tagOf(data);
  if (tag) events.push({ t: before, after, ...sched(), op: 'write', on: stdio(this), ...tag });
  return result;
};
const emit = net.Socket.prototype.emit;
net.Socket.prototype.emit = function (name, chunk, ...rest) {
  if (name === 'data') {
    const t = now();
    const tag = tagOf(chunk);
    if (tag) events.push({ t, ...sched(), op: 'data', on: stdio(this), ...tag });
  }
  return emit.call(this, name, chunk, ...rest);
};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    events.push({
      t: perfToNs + entry.startTime * 1e6,
      op: 'gc',
      ns: entry.duration * 1e6,
      gc: entry.detail?.kind,
    });
  }
}).observe({ entryTypes: ['gc'] });

/** Marks `label>` when `proto[name]` is called and, with `settles`, `label<` when its promise settles. */
function markMethod(proto, name, label, settles) {
  const original = proto[name];
  proto[name] = function (...args) {
    events.push({ t: now(), op: 'mark', name: `${label}>` });
    const result = original.apply(this, args);
    if (settles && typeof result?.then === 'function') {
      const done = () => events.push({ t: now(), op: 'mark', name: `${label}<` });
      result.then(done, done);
    }
    return result;
  };
}

/** The layers of a `wrap` build (its dist/ next to the script), and of the middleware and SDK it resolves. */
async function markLayers() {
  const dist = script.replace(/\/cli\.js$/, '');
  const require = createRequire(script);
  const sdk = require
    .resolve('@modelcontextprotocol/sdk/client/stdio.js')
    .replace(/\/dist\/cjs\/.*$/, '/dist/esm');
  const middleware = require
    .resolve('@mcp-resilience/middleware/package.json')
    .replace(/package\.json$/, 'dist');
  const layers = [
    [`${sdk}/shared/protocol.js`, 'Protocol', '_onrequest', 'Server._onrequest', false],
    [`${dist}/upstream/Upstream.js`, 'Upstream', 'request', 'Upstream.request', true],
    [`${middleware}/mcp/McpCall.js`, 'McpCall', 'run', 'McpCall.run', true],
    [`${middleware}/call/Call.js`, 'Call', 'run', 'Call.run', true],
    [`${sdk}/shared/protocol.js`, 'Protocol', 'request', 'Client.request', true],
    [`${sdk}/client/stdio.js`, 'StdioClientTransport', 'send', 'child send', false],
    [`${sdk}/server/stdio.js`, 'StdioServerTransport', 'send', 'host send', false],
  ];
  for (const [file, exported, method, label, settles] of layers) {
    const module = await import(file);
    markMethod(module[exported].prototype, method, label, settles);
  }
}
if (role === 'proxy' && script.endsWith('dist/cli.js')) await markLayers();

function flush() {
  if (events.length === 0 || dir === undefined) return;
  const lines = events.map((e) => JSON.stringify(e)).join('\n');
  events = [];
  appendFileSync(`${dir}/${role}-${process.pid}.jsonl`, `${lines}\n`);
}
setInterval(flush, 200).unref();
process.on('exit', flush);
