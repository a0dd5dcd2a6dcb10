import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { proxyCommand } from './commands.js';

/** A host connected to `mcp-resilience <args>` whose process the test holds (to see it exit). */
export interface SpawnedHost {
  readonly client: Client;
  readonly pid: number;
  /** Resolves with the proxy's exit code and signal once its process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Goes away as a host does: ends the proxy's stdin (no signal). */
  leave(): void;
  /** Ends the proxy for good (after a failed test): SIGKILL if it is still running. */
  close(): Promise<void>;
}

/**
 * Spawns the proxy's CLI with `args` and connects an SDK v1 `Client` over its stdio, as a host would, but keeps
 * the child process: a test can wait on its `exit` event. (The SDK's `StdioClientTransport` hides the process
 * and kills it on close after 2 s and 2 s more; the SDK's newline-JSON `StdioServerTransport` over the child's
 * pipes is the same framing without that.)
 */
export async function spawnHost(args: readonly string[]): Promise<SpawnedHost> {
  const { command, args: argv } = proxyCommand(args);
  const child: ChildProcess = spawn(command, argv, { stdio: ['pipe', 'pipe', 'ignore'] });
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const client = new Client({ name: 'test-host', version: '1.0.0' });
  await client.connect(new StdioServerTransport(child.stdout!, child.stdin!));
  return {
    client,
    pid: child.pid!,
    exited,
    leave: () => child.stdin?.end(),
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
