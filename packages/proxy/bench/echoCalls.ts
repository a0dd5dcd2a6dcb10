/**
 * What the proxy's benches share (`run.ts`, `wallBreakdown.ts`, `profileWrap.ts`): the stdio server they call
 * (`@modelcontextprotocol/server-everything`), the SDK v1 client that spawns a path, and the calls of `echo` at a
 * fixed rate after a warm-up.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const require = createRequire(import.meta.url);

/** server-everything over stdio: its script and argument (run with `process.execPath`). */
export const EVERYTHING: readonly string[] = [
  join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js'),
  'stdio',
];

/** A client connected to `process.execPath args` over stdio (the child's stderr ignored). */
export async function connectStdio(
  args: readonly string[],
  env?: Record<string, string>,
): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...args],
    ...(env ? { env } : {}),
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** How many calls of `echo`, at what rate, after how many warm-up calls. */
export interface EchoLoad {
  readonly calls: number;
  /** Calls per second of the measured calls. */
  readonly rate: number;
  /** Calls made one after another before them. */
  readonly warmup: number;
}

/**
 * Calls `echo` `warmup` times one after another, then `calls` times at `rate` calls/s (open loop: a call starts
 * every 1000/rate ms whatever the others do), the i-th with the message `m<i>` (what `wallTrace.mjs` tags).
 * `each` gets each measured call as it starts, with its start (`performance.now()`), and returns what to wait
 * for; resolves when every one has settled.
 */
export async function echoOpenLoop(
  client: Client,
  load: EchoLoad,
  each: (call: Promise<CallToolResult>, startedAt: number) => Promise<unknown> = (call) => call,
): Promise<void> {
  for (let i = 0; i < load.warmup; i++) {
    await client.callTool({ name: 'echo', arguments: { message: 'warm' } });
  }
  const started = performance.now();
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < load.calls; i++) {
    const wait = started + (i * 1000) / load.rate - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const t0 = performance.now();
    const call = client.callTool({
      name: 'echo',
      arguments: { message: `m${i}` },
    }) as Promise<CallToolResult>;
    calls.push(each(call, t0));
  }
  await Promise.all(calls);
}
