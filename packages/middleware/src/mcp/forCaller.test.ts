import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryRecorder } from '../record/createMemoryRecorder.js';
import { forCaller } from './forCaller.js';
import { withResilience } from './withResilience.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A real SDK server whose `lookup` refuses every city but Paris (a non-retryable failure), counting its runs. */
async function connected() {
  const runs: string[] = [];
  const server = new McpServer({ name: 'test-server', version: '1.0.0' });
  server.registerTool('lookup', { inputSchema: { city: z.string() } }, async ({ city }) => {
    runs.push(city);
    if (city === 'Paris') return { content: [{ type: 'text', text: 'sunny' }] };
    return { content: [{ type: 'text', text: `unknown city ${city}` }], isError: true };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close().catch(() => {});
    await server.close().catch(() => {});
  });
  const recorder = createMemoryRecorder();
  return { mcp: withResilience(client, { server: 'weather', recorder }), runs, recorder };
}

/** A real SDK server `name` whose read-only `lookup` runs `handler`, and a client connected to it. */
async function pairOf(name: string, handler: (city: string) => Promise<CallToolResult>) {
  const server = new McpServer({ name, version: '1.0.0' });
  server.registerTool(
    'lookup',
    { inputSchema: { city: z.string() }, annotations: { readOnlyHint: true } },
    ({ city }) => handler(city),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close().catch(() => {});
    await server.close().catch(() => {});
  });
  return { server, client };
}

const ATLANTIS = { name: 'lookup', arguments: { city: 'Atlantis' } };

describe('forCaller', () => {
  it("answers a caller's repeat from its own failure, never another caller's identical call", async () => {
    const { mcp, runs, recorder } = await connected();
    const alice = forCaller(mcp, 'alice');
    const bob = forCaller(mcp, 'bob');
    const first = (await alice.callTool(ATLANTIS)) as CallToolResult;
    expect(first.isError).toBe(true);
    expect(((await alice.callTool(ATLANTIS)) as CallToolResult).isError).toBe(true);
    expect(runs).toEqual(['Atlantis']); // alice's repeat was answered from memory
    expect(((await bob.callTool(ATLANTIS)) as CallToolResult).isError).toBe(true);
    expect(((await mcp.callTool(ATLANTIS)) as CallToolResult).isError).toBe(true);
    expect(runs).toEqual(['Atlantis', 'Atlantis', 'Atlantis']); // bob's call and the plain client's ran
    expect(recorder.ofType('model_retry_avoided')).toHaveLength(1);
    // Everything else is the client's: the same pipeline (one breaker, one tool listing) and SDK calls.
    expect((await bob.listTools()).tools.map((t) => t.name)).toEqual(['lookup']);
    expect(bob.getServerVersion()?.name).toBe('test-server');
    expect(
      ((await bob.callTool({ name: 'lookup', arguments: { city: 'Paris' } })) as CallToolResult).isError,
    ).toBeFalsy();
  });

  it("keeps the caller on a fallback call: a wrapped fallback's memory is per caller too", async () => {
    const { client: primary } = await pairOf('primary', () => new Promise(() => {}));
    const backupRuns: string[] = [];
    const { client: backup } = await pairOf('backup', async (city) => {
      backupRuns.push(city);
      return { content: [{ type: 'text', text: `unknown city ${city}` }], isError: true };
    });
    const mcp = withResilience(primary, {
      server: 'primary',
      maxAttempts: 1,
      attemptTimeoutMs: 50,
      // Passed already wrapped: the backup keeps its own options, its negative cache included.
      fallbacks: [{ client: withResilience(backup, { server: 'backup' }), server: 'backup' }],
    });
    const alice = forCaller(mcp, 'alice');
    const bob = forCaller(mcp, 'bob');
    expect(((await alice.callTool(ATLANTIS)) as CallToolResult).isError).toBe(true);
    expect(((await alice.callTool(ATLANTIS)) as CallToolResult).isError).toBe(true);
    expect(backupRuns).toEqual(['Atlantis']); // alice's repeat: answered from the backup's memory of alice
    expect(((await bob.callTool(ATLANTIS)) as CallToolResult).isError).toBe(true);
    expect(backupRuns).toEqual(['Atlantis', 'Atlantis']);
  });

  it('refuses a client that is not a withResilience one, and an empty caller, naming the argument', async () => {
    const { mcp } = await connected();
    expect(() => forCaller(new Client({ name: 'plain', version: '1' }), 'alice')).toThrow(
      /forCaller: client must be a client returned by withResilience/,
    );
    expect(() => forCaller(mcp, '')).toThrow(/forCaller: caller must be a non-empty string, got ''/);
  });
});
