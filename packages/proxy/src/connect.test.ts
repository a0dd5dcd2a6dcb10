import { type ChaosHttpServer, startChaosHttpServer } from '@mcp-resilience/chaos';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from './gateway/loadGatewayConfig.js';
import { type Gateway, startGateway } from './gateway/startGateway.js';
import { connectHost } from './test-support/connectHost.js';

const TOKEN = 'connect-test-token-0123';
let chaos: ChaosHttpServer;
let gateway: Gateway;
const clients: Client[] = [];

beforeAll(async () => {
  chaos = await startChaosHttpServer({
    seed: 1,
    plan: { faults: [{ kind: 'rate_limit', tool: 'search', retryAfter: 1, times: 1 }] },
  });
  gateway = await startGateway({
    config: parseGatewayConfig({ mcpServers: { tickets: { url: chaos.url } } }, 'inline'),
    port: 0,
    token: TOKEN,
  });
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await gateway?.close();
  await chaos?.close();
});

describe('mcp-resilience connect', () => {
  it('bridges stdio to a Streamable HTTP server and waits out its Retry-After', async () => {
    const host = await connectHost(['connect', chaos.url]);
    clients.push(host);
    const result = (await host.callTool({ name: 'search', arguments: { query: 'mcp' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const searches = chaos.log.filter((e) => e.tool === 'search');
    expect(searches.map((e) => [e.fault, e.executed])).toEqual([
      ['rate_limit', false],
      [null, true],
    ]);
  });

  it('sends --header on every request (here the gateway token), and reports a refused connection', async () => {
    const url = `${gateway.url}/tickets/mcp`;
    const host = await connectHost(['connect', '--header', `Authorization: Bearer ${TOKEN}`, url]);
    clients.push(host);
    const result = (await host.callTool({
      name: 'get_weather',
      arguments: { city: 'Paris' },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    await expect(connectHost(['connect', url])).rejects.toThrow(
      `could not connect to the upstream server at ${url}: non_retryable unauthorized after 1 attempt`,
    );
  });
});
