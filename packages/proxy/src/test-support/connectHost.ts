import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { proxyCommand } from './commands.js';

/** A host: an SDK v1 `Client` that spawns `mcp-resilience <args>` over stdio, as Claude Desktop would. */
export async function connectHost(
  args: readonly string[],
  capabilities: ClientCapabilities = {},
  setup?: (client: Client, transport: StdioClientTransport) => void,
): Promise<Client> {
  const client = new Client({ name: 'test-host', version: '1.0.0' }, { capabilities });
  const { command, args: argv } = proxyCommand(args);
  const transport = new StdioClientTransport({ command, args: argv, stderr: 'ignore' });
  setup?.(client, transport);
  await client.connect(transport);
  return client;
}
