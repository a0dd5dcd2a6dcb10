import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { SingleConnect } from './SingleConnect.js';

/**
 * A real SDK server on one end of an in-memory pair (`answering: false`: no server there, nobody answers
 * `initialize`); the client's end counts its starts and closes.
 */
async function served(answering = true) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  if (answering) await new McpServer({ name: 'single', version: '1.0.0' }).connect(serverSide);
  const seen = { starts: 0, closes: 0 };
  const start = clientSide.start.bind(clientSide);
  const close = clientSide.close.bind(clientSide);
  clientSide.start = () => {
    seen.starts++;
    return start();
  };
  clientSide.close = () => {
    seen.closes++;
    return close();
  };
  return { transport: clientSide, seen };
}

describe('SingleConnect', () => {
  it('joins a connect made while another is under way: its transport is never started', async () => {
    const client = new Client({ name: 'c', version: '1' });
    const connects = new SingleConnect(client);
    const first = await served();
    const second = await served();
    await Promise.all([client.connect(first.transport), client.connect(second.transport)]);
    expect([first.seen.starts, second.seen.starts]).toEqual([1, 0]);
    expect(client.transport).toBe(first.transport);
    expect(client.getServerVersion()?.name).toBe('single');
    // Once settled, the next connect is a connection of its own.
    await client.close();
    await client.connect(second.transport);
    expect(second.seen.starts).toBe(1);
    await connects.abandon(); // nothing under way: nothing closed
    expect(second.seen.closes).toBe(0);
    await client.close();
  });

  it('abandon closes the transport of a connection under way and waits for it to settle', async () => {
    const client = new Client({ name: 'c', version: '1' });
    const connects = new SingleConnect(client);
    const { transport, seen } = await served(false);
    const connecting = client.connect(transport).catch((error: unknown) => error);
    await connects.abandon();
    // Closed by abandon (and once more by the SDK client, as its connect failed).
    expect(seen.starts).toBe(1);
    expect(seen.closes).toBeGreaterThanOrEqual(1);
    expect(await connecting).toBeInstanceOf(Error);
  });
});
