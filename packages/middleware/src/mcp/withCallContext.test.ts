import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryRecorder } from '../record/createMemoryRecorder.js';
import { forCaller } from './forCaller.js';
import { withCallContext } from './withCallContext.js';
import { withResilience } from './withResilience.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A real SDK server whose `lookup` refuses every city (a non-retryable failure), counting its runs. */
async function connected(onRun: () => void = () => {}) {
  const runs: string[] = [];
  const server = new McpServer({ name: 'test-server', version: '1.0.0' });
  server.registerTool('lookup', { inputSchema: { city: z.string() } }, async ({ city }) => {
    runs.push(city);
    onRun();
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

const ATLANTIS = { name: 'lookup', arguments: { city: 'Atlantis' } };
const failedCall = async (client: { callTool(params: typeof ATLANTIS): Promise<unknown> }) =>
  ((await client.callTool(ATLANTIS)) as CallToolResult).isError;

describe('withCallContext', () => {
  it('keeps a failure out of the negative cache when its rememberFailure says no, asked when it failed', async () => {
    // The moment is told during the call (as a proxy learns it), and asked once the call failed.
    let momentary = false;
    let during = true;
    const { mcp, runs, recorder } = await connected(() => {
      if (during) momentary = true;
    });
    const asked: boolean[] = [];
    const rememberFailure = () => {
      asked.push(momentary);
      return !momentary;
    };
    expect(await failedCall(withCallContext(mcp, { rememberFailure }))).toBe(true);
    expect(asked).toEqual([true]);
    // Not remembered: the repeat runs on the server.
    momentary = false;
    during = false;
    expect(await failedCall(mcp)).toBe(true);
    expect(runs).toEqual(['Atlantis', 'Atlantis']);
    // A failure it lets be kept is remembered as any other, and answers the plain client's repeat.
    expect(await failedCall(withCallContext(mcp, { rememberFailure }))).toBe(true);
    expect(await failedCall(mcp)).toBe(true);
    expect(runs).toEqual(['Atlantis', 'Atlantis']);
    expect(recorder.ofType('model_retry_avoided')).toHaveLength(2);
  });

  it('a rememberFailure that throws counts as no; a caller keys the memory as forCaller does', async () => {
    const { mcp, runs } = await connected();
    const throwing = () => {
      throw new Error('broken');
    };
    expect(await failedCall(withCallContext(mcp, { caller: 'alice', rememberFailure: throwing }))).toBe(true);
    const alice = withCallContext(mcp, { caller: 'alice' });
    expect(await failedCall(alice)).toBe(true);
    expect(runs).toHaveLength(2);
    // Now kept, for alice only.
    expect(await failedCall(forCaller(mcp, 'alice'))).toBe(true);
    expect(runs).toHaveLength(2);
    expect(await failedCall(forCaller(mcp, 'bob'))).toBe(true);
    expect(runs).toHaveLength(3);
  });

  it('refuses a client that is not a withResilience one, an empty caller and a rememberFailure that is no function', async () => {
    const { mcp } = await connected();
    expect(() => withCallContext(new Client({ name: 'plain', version: '1' }), {})).toThrow(
      /withCallContext: client must be a client returned by withResilience/,
    );
    expect(() => withCallContext(mcp, { caller: '' })).toThrow(
      /withCallContext: caller must be a non-empty string, got ''/,
    );
    expect(() => withCallContext(mcp, { rememberFailure: false as never })).toThrow(
      /withCallContext: rememberFailure must be a function, got false/,
    );
  });
});
