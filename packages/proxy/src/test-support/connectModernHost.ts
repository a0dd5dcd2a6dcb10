import { Client, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { proxyCommand } from './commands.js';

type Mode = NonNullable<NonNullable<ClientOptions['versionNegotiation']>['mode']>;

/**
 * A host on the MCP TypeScript SDK v2 (`@modelcontextprotocol/client`) that spawns `mcp-resilience <args>` over
 * stdio. `'auto'` (the default) probes with `server/discover` on a short-lived sibling process, then starts the
 * session's process in the revision found; `{ pin }` speaks only that revision; `'legacy'` opens 2025-11-25.
 */
export async function connectModernHost(args: readonly string[], mode: Mode = 'auto'): Promise<Client> {
  const client = new Client({ name: 'test-host-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
  const { command, args: argv } = proxyCommand(args);
  await client.connect(new StdioClientTransport({ command, args: argv, stderr: 'ignore' }));
  return client;
}
