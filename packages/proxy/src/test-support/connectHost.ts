import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { proxyCommand } from './commands.js';

/** A host: an SDK v1 `Client` that spawns `mcp-resilience <args>` over stdio, as Claude Desktop would. */
export async function connectHost(
  args: readonly string[],
  capabilities: ClientCapabilities = {},
  setup?: (client: Client) => void,
): Promise<Client> {
  const client = new Client({ name: 'test-host', version: '1.0.0' }, { capabilities });
  setup?.(client);
  const { command, args: argv } = proxyCommand(args);
  await client.connect(new StdioClientTransport({ command, args: argv, stderr: 'ignore' }));
  return client;
}
