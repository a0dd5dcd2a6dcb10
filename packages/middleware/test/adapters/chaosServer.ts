import { type ChaosHttpServer, startChaosHttpServer } from '@mcp-resilience/chaos';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { httpTransport, newClient } from '../mcp/harness.js';

/** A healthy chaos server over Streamable HTTP on 127.0.0.1, a connected client, and its cleanup. */
export async function connectedChaos(): Promise<{
  http: ChaosHttpServer;
  client: Client;
  close(): Promise<void>;
}> {
  const http = await startChaosHttpServer({ plan: { faults: [] }, seed: 1 });
  const client = newClient();
  await client.connect(httpTransport(http.url));
  return {
    http,
    client,
    close: async () => {
      await client.close().catch(() => {});
      await http.close();
    },
  };
}

/** How many `tools/call` of `tool` the server received (its ground-truth log). */
export const callsOf = (http: ChaosHttpServer, tool: string) =>
  http.log.filter((e) => e.method === 'tools/call' && e.tool === tool).length;

/** The invalid call the scripted models repeat: a city the `get_weather` tool does not know. */
export const INVALID_CALL = { name: 'get_weather', args: { city: 'Atlantis' } } as const;
