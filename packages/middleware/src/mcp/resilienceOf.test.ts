import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createResilience } from '../createResilience.js';
import { forCaller } from './forCaller.js';
import { resilienceOf } from './resilienceOf.js';
import { withResilience } from './withResilience.js';

/** A real SDK server whose `lookup` always fails (an `isError` result), and a client connected to it. */
async function failing() {
  const server = new McpServer({ name: 'weather', version: '1.0.0' });
  server.registerTool('lookup', { inputSchema: { city: z.string() } }, async () => {
    throw new Error('upstream down');
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  return { client, close: () => Promise.all([client.close(), server.close()]) };
}

describe('resilienceOf', () => {
  it("gives the client's own pipeline: its breakers are the calls' endpoints, with no recorder", async () => {
    const { client, close } = await failing();
    const mcp = withResilience(client, { server: 'weather' });
    const pipeline = resilienceOf(mcp);
    expect(pipeline.breakers()).toEqual([]);
    await mcp.callTool({ name: 'lookup', arguments: { city: 'Paris' } }).catch(() => {});
    expect(pipeline.breakers().map((b) => [b.endpoint, b.state])).toEqual([['weather', 'closed']]);
    expect(resilienceOf(forCaller(mcp, 'host-1'))).toBe(pipeline);
    await close();
  });

  it('gives the shared pipeline a client was given', async () => {
    const { client, close } = await failing();
    const resilience = createResilience();
    expect(resilienceOf(withResilience(client, { resilience }))).toBe(resilience);
    await close();
  });

  it('refuses a client that is not a withResilience one, naming the argument', () => {
    expect(() => resilienceOf(new Client({ name: 'plain', version: '1' }))).toThrow(
      /resilienceOf: client must be a client returned by withResilience/,
    );
  });
});
