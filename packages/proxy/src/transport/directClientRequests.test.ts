import { createFakeClock } from '@mcp-resilience/middleware/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { McpError, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { passthroughResult } from '../upstream/passthroughResult.js';
import { directClientRequests } from './directClientRequests.js';
import { leanDispatch } from './leanDispatch.js';

type Extra = { signal: AbortSignal; requestId: string | number };

/** A real SDK v1 server whose `tools/call` answers with what `handle` returns (or throws). */
async function connected(handle: (params: Record<string, unknown>, extra: Extra) => Promise<unknown>) {
  const clock = createFakeClock(1_000);
  const server = new Server({ name: 'upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
  const seen: { method: string; params?: Record<string, unknown> }[] = [];
  server.fallbackRequestHandler = async (request, extra) =>
    (await handle(request.params ?? {}, extra)) as never;
  const client = directClientRequests(
    leanDispatch(new Client({ name: 'proxy', version: '1.0.0' })),
    new Set(['tools/call']),
    passthroughResult,
    { clock },
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  // Every message the server receives, as it arrives.
  const deliver = serverSide.onmessage;
  serverSide.onmessage = (message, extra) => {
    seen.push(message as (typeof seen)[number]);
    deliver?.(message, extra);
  };
  await client.connect(clientSide);
  const sdkTimers = vi.spyOn(Protocol.prototype as never, '_setupTimeout' as never);
  return { client, server, clock, seen, sdkTimers };
}

const call = { method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } };

/** Resolves when the server has seen `count` messages of `method`. */
async function until(seen: readonly { method: string }[], method: string, count = 1): Promise<void> {
  while (seen.filter((m) => m.method === method).length < count) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

afterEach(() => vi.restoreAllMocks());

describe('directClientRequests', () => {
  it('sends a tools/call and matches its result by id, without the SDK request layer', async () => {
    const { client, sdkTimers } = await connected(async (params) => ({
      content: [{ type: 'text', text: `Echo: ${JSON.stringify(params.arguments)}` }],
    }));
    const results = await Promise.all([
      client.request(call as never, passthroughResult as never),
      client.request(
        { ...call, params: { name: 'echo', arguments: { n: 2 } } } as never,
        passthroughResult as never,
      ),
    ]);
    expect(results).toEqual([
      { content: [{ type: 'text', text: 'Echo: {"message":"hi"}' }] },
      { content: [{ type: 'text', text: 'Echo: {"n":2}' }] },
    ]);
    expect(sdkTimers).not.toHaveBeenCalled();
    // The SDK's own requests share the id sequence: no collision afterwards.
    await expect(client.ping()).resolves.toEqual({});
    expect(sdkTimers).toHaveBeenCalledTimes(1);
    await client.close();
  });

  it("rejects with the server's error as the SDK does (code, message, data)", async () => {
    const { client } = await connected(async () => {
      throw new McpError(-32602, 'bad arguments', { field: 'message' });
    });
    const error = await client.request(call as never, passthroughResult as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32602, data: { field: 'message' } });
    expect((error as Error).message).toContain('bad arguments');
    await client.close();
  });

  it('rejects a result that is not a JSON object with the schema error', async () => {
    // The server's SDK answers an object; the schema is what rejects anything else.
    const strict = { safeParse: () => ({ success: false as const, error: new Error('not a tool result') }) };
    const direct = directClientRequests(
      leanDispatch(new Client({ name: 'p', version: '1' })),
      new Set(['tools/call']),
      strict,
    );
    const [a, b] = InMemoryTransport.createLinkedPair();
    const server = new Server({ name: 'u', version: '1' }, { capabilities: { tools: {} } });
    server.fallbackRequestHandler = async () => ({}) as never;
    await server.connect(b);
    await direct.connect(a);
    await expect(direct.request(call as never, strict as never)).rejects.toThrow('not a tool result');
    await direct.close();
  });

  it('times out after `timeout` on the clock: notifications/cancelled to the server, the SDK timeout error', async () => {
    let aborted: unknown;
    const { client, clock, seen } = await connected(
      (_params, extra) =>
        new Promise((_resolve, reject) => {
          extra.signal.addEventListener('abort', () => {
            aborted = extra.signal.reason;
            reject(new Error('cancelled'));
          });
        }),
    );
    const pending = client.request(call as never, passthroughResult as never, { timeout: 5_000 });
    let done = false;
    const settled = pending
      .catch((e: unknown) => e)
      .finally(() => {
        done = true;
      });
    await until(seen, 'tools/call');
    await clock.advance(4_999);
    expect(done).toBe(false);
    await clock.advance(1);
    const error = await settled;
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32001, data: { timeout: 5_000 } });
    await until(seen, 'notifications/cancelled');
    const cancelled = seen.find((m) => m.method === 'notifications/cancelled');
    expect(cancelled?.params).toMatchObject({
      requestId: 1,
      reason: expect.stringContaining('Request timed out'),
    });
    expect(aborted).toBeDefined();
    await client.close();
  });

  it('cancels on the signal: the server is told, the caller gets the SDK error with the reason', async () => {
    const { client, seen } = await connected(() => new Promise(() => {}));
    const controller = new AbortController();
    const settled = client
      .request(call as never, passthroughResult as never, { signal: controller.signal })
      .catch((e: unknown) => e);
    await until(seen, 'tools/call');
    controller.abort('host cancelled');
    const error = await settled;
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32001 });
    expect((error as Error).message).toContain('host cancelled');
    await until(seen, 'notifications/cancelled');
    expect(seen.find((m) => m.method === 'notifications/cancelled')?.params).toEqual({
      requestId: 1,
      reason: 'host cancelled',
    });
    const already = new AbortController();
    already.abort(new Error('before'));
    await expect(
      client.request(call as never, passthroughResult as never, { signal: already.signal }),
    ).rejects.toThrow('before');
    expect(seen.filter((m) => m.method === 'tools/call')).toHaveLength(1);
    await client.close();
  });

  it("rejects what is in flight with the SDK's Connection closed when the connection ends", async () => {
    const { client, seen } = await connected(() => new Promise(() => {}));
    const settled = client.request(call as never, passthroughResult as never).catch((e: unknown) => e);
    await until(seen, 'tools/call');
    await client.close();
    const error = await settled;
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32000, message: expect.stringContaining('Connection closed') });
    await expect(client.request(call as never, passthroughResult as never)).rejects.toThrow('Not connected');
  });

  it('leaves progress, other methods and other schemas to the SDK', async () => {
    const { client, sdkTimers } = await connected(async () => ({ content: [] }));
    await client.request(call as never, passthroughResult as never, {
      onprogress: () => {},
    });
    await client.request(call as never, ResultSchema);
    await client.request({ method: 'tools/list', params: {} } as never, passthroughResult as never);
    expect(sdkTimers).toHaveBeenCalledTimes(3);
    await client.close();
  });

  it('refuses a client without the SDK members it uses', () => {
    expect(() => directClientRequests({}, new Set(), passthroughResult)).toThrow(/no request/);
  });
});
