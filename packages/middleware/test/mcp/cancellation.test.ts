import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CANCELLED_METHOD,
  type FaultPlan,
  type GroundTruthEntry,
  startChaosHttpServer,
} from '@mcp-resilience/chaos';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { isResilienceError } from '../../src/errors/ResilienceError.js';
import { type McpClientLike, withResilience } from '../../src/mcp/index.js';
import {
  CHAOS_CLI,
  fast,
  httpTransport,
  newClient,
  readLog,
  skippableClock,
  tempDir,
  until,
} from './harness.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Protocol = '2025-11-25' | '2026-07-28';
type Line = 'v1' | 'v2';
// biome-ignore lint/suspicious/noExplicitAny: the two lines type callTool differently
type AnyClient = McpClientLike & { callTool(...args: any[]): Promise<any> };

/** `callTool` with request options: v1 takes them third (after a result schema), v2 second. */
const callTool = (mcp: AnyClient, line: Line, params: object, options: object = {}) =>
  line === 'v1' ? mcp.callTool(params, undefined, options) : mcp.callTool(params, options);

/** `search` (idempotent) never answers the first time: the attempt that is cut must be cancelled on the server. */
const plan: FaultPlan = { faults: [{ kind: 'hang', tool: 'search', times: 1 }] };

/** A chaos server (stdio or Streamable HTTP, either protocol) and a connected client of either SDK line. */
async function connect(line: Line, transport: 'stdio' | 'http', protocol: Protocol) {
  const v2Options =
    protocol === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } as const } } : {};
  const client: AnyClient =
    line === 'v1' ? newClient() : new ClientV2({ name: 'mcp-resilience-test', version: '1.0.0' }, v2Options);
  if (transport === 'http') {
    const chaos = await startChaosHttpServer({ plan, protocol });
    cleanups.push(() => chaos.close());
    await client.connect(line === 'v1' ? httpTransport(chaos.url) : new HttpTransportV2(new URL(chaos.url)));
    cleanups.push(() => client.close());
    return { client, log: (): readonly GroundTruthEntry[] => chaos.log };
  }
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  const planFile = join(dir, 'plan.json');
  const logFile = join(dir, 'log.jsonl');
  writeFileSync(planFile, JSON.stringify(plan));
  const params = {
    command: process.execPath,
    args: [
      CHAOS_CLI,
      'serve',
      '--transport',
      'stdio',
      '--protocol',
      protocol,
      '--plan',
      planFile,
      '--log',
      logFile,
    ],
  };
  await client.connect(line === 'v1' ? new StdioClientTransport(params) : new StdioTransportV2(params));
  cleanups.push(() => client.close());
  // v2 on 2026-07-28 starts the server's process after probing a sibling one: wait until it answers.
  await client.listTools();
  return { client, log: () => readLog(logFile) };
}

/** A time limit that only the test ends (`skippableClock`), once the server has the request. */
const LIMIT_MS = 60_000;

/** Waits until the server's log shows what `predicate` looks for (the log of another process: polled). */
const logged = (
  log: () => readonly GroundTruthEntry[],
  predicate: (log: readonly GroundTruthEntry[]) => boolean,
  what: string,
) => until(() => predicate(log()), 15_000, what);

const hasHung = (entries: readonly GroundTruthEntry[]) => hungAndCancelled(entries).hung !== undefined;
const cancellations = (n: number) => (entries: readonly GroundTruthEntry[]) =>
  hungAndCancelled(entries).cancelled.length === n;

/** The hung `search` request and the cancellation the server logged for it. */
function hungAndCancelled(log: readonly GroundTruthEntry[]) {
  const hung = log.find((e) => e.method === 'tools/call' && e.fault === 'hang');
  const cancelled = log.filter((e) => e.method === CANCELLED_METHOD);
  return { hung, cancelled };
}

describe.each([
  ['v1', 'stdio', '2025-11-25', 'notification'],
  ['v1', 'http', '2025-11-25', 'notification'],
  ['v2', 'stdio', '2025-11-25', 'notification'],
  ['v2', 'http', '2025-11-25', 'notification'],
  ['v2', 'stdio', '2026-07-28', 'notification'],
  ['v2', 'http', '2026-07-28', 'stream_closed'],
] as const)('SDK %s over %s, protocol %s', (line, transport, protocol, via) => {
  it(`an attempt cut by its time limit is cancelled on the server (${via}), and the retry succeeds`, async () => {
    const { client, log } = await connect(line, transport, protocol);
    const clock = skippableClock();
    const mcp = withResilience(client, { ...fast, server: 'chaos', attemptTimeoutMs: LIMIT_MS, clock });
    const pending = callTool(mcp, line, { name: 'search', arguments: { query: 'mcp' } });
    pending.catch(() => {}); // observed: awaited below, but an assertion may fail before
    // The server has the request that hangs: now its attempt's time limit passes (the retry has all the time).
    await logged(log, hasHung, 'the hung request on the server');
    clock.skip(LIMIT_MS);
    const result = await pending;
    expect(result.isError).toBeUndefined();
    await logged(log, cancellations(1), 'the cancellation on the server');
    const { hung, cancelled } = hungAndCancelled(log());
    expect(cancelled[0]?.requestId).toBe(hung?.requestId);
    expect(cancelled[0]?.via).toBe(via);
    if (via === 'notification') expect(cancelled[0]?.reason).toMatch(/AttemptTimeoutError/);
    // The retry is a new request (new id) that ran.
    const retried = log().filter((e) => e.tool === 'search' && e.fault === null);
    expect(retried).toHaveLength(1);
    expect(retried[0]?.requestId).not.toBe(hung?.requestId);
  });

  it('the caller’s abort and the call’s deadline are cancellations too', async () => {
    const { client, log } = await connect(line, transport, protocol);
    const mcp = withResilience(client, { ...fast, server: 'chaos' });
    const controller = new AbortController();
    const pending = callTool(
      mcp,
      line,
      { name: 'search', arguments: { query: 'mcp' } },
      { signal: controller.signal },
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    // The user gives up once the server has the request.
    await logged(log, hasHung, 'the hung request on the server');
    controller.abort(new Error('the user gave up'));
    const aborted = await pending;
    expect(isResilienceError(aborted) && aborted.reason).toBe('aborted');
    await logged(log, cancellations(1), 'the cancellation on the server');
    expect(hungAndCancelled(log()).cancelled[0]?.requestId).toBe(hungAndCancelled(log()).hung?.requestId);

    // A deadline (`timeoutMs`) shorter than the server takes: the attempt in flight is cancelled. It passes once
    // the report is running on the server (its first progress notification).
    const clock = skippableClock();
    const slow = withResilience(client, { ...fast, server: 'chaos-deadline', timeoutMs: LIMIT_MS, clock });
    let running: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      running = resolve;
    });
    const report = callTool(
      slow,
      line,
      { name: 'generate_report', arguments: { topic: 'x', steps: 50 } },
      { onprogress: () => running() },
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    await started;
    clock.skip(LIMIT_MS);
    const late = await report;
    expect(isResilienceError(late) && late.reason).toBe('deadline');
    await logged(log, cancellations(2), 'the second cancellation on the server');
    const reportEntry = log().find((e) => e.tool === 'generate_report');
    expect(hungAndCancelled(log()).cancelled[1]?.requestId).toBe(reportEntry?.requestId);
  });
});
