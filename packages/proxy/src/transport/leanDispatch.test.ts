import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  JSONRPCErrorResponseSchema,
  type JSONRPCMessage,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
  McpError,
  ResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { leanDispatch } from './leanDispatch.js';

const ENVELOPES = [
  JSONRPCRequestSchema,
  JSONRPCNotificationSchema,
  JSONRPCResultResponseSchema,
  JSONRPCErrorResponseSchema,
];

/** Counts the SDK's zod parses of JSON-RPC envelopes (its guards call `safeParse` of these schemas). */
function countEnvelopeParses(): () => number {
  const spies = ENVELOPES.map((schema) => vi.spyOn(schema, 'safeParse'));
  return () => spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
}

function leanServer(): Server {
  const server = leanDispatch(
    new Server({ name: 'upstream', version: '1.0.0' }, { capabilities: { tools: {} } }),
  );
  server.fallbackRequestHandler = async (request) => {
    if ((request.params as { fail?: boolean } | undefined)?.fail) {
      throw new McpError(-32602, 'bad arguments', { field: 'a' });
    }
    return { echoed: request.method } as never;
  };
  return server;
}

afterEach(() => vi.restoreAllMocks());

describe('leanDispatch', () => {
  it('serves requests and errors between a Client and a Server with no zod envelope parse', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = leanServer();
    const client = leanDispatch(new Client({ name: 'host', version: '1.0.0' }));
    await server.connect(serverSide);
    await client.connect(clientSide);
    const parses = countEnvelopeParses();
    const ok = await client.request({ method: 'custom/echo', params: {} }, ResultSchema);
    const failed = await client
      .request({ method: 'custom/echo', params: { fail: true } }, ResultSchema)
      .catch((e) => e);
    expect(ok).toEqual({ echoed: 'custom/echo' });
    expect(failed).toBeInstanceOf(McpError);
    expect(failed).toMatchObject({ code: -32602, data: { field: 'a' } });
    expect(parses()).toBe(0);
    await client.close();
  });

  it('delivers progress sent on the request stream to the caller', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = leanServer();
    server.fallbackRequestHandler = async (request, extra) => {
      const meta = request.params?._meta as { progressToken: number } | undefined;
      const token = meta?.progressToken ?? -1;
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: 1 },
      });
      return {} as never;
    };
    const client = leanDispatch(new Client({ name: 'host', version: '1.0.0' }));
    await server.connect(serverSide);
    await client.connect(clientSide);
    const progress: unknown[] = [];
    await client.request({ method: 'custom/slow', params: {} }, ResultSchema, {
      onprogress: (p) => progress.push(p),
    });
    expect(progress).toEqual([{ progress: 1 }]);
    await client.close();
  });

  it('answers a malformed request that has an id with -32600 and reports the rest on onerror', async () => {
    const [peer, serverSide] = InMemoryTransport.createLinkedPair();
    const server = leanServer();
    const errors: string[] = [];
    server.onerror = (error) => errors.push(error.message);
    const replies: JSONRPCMessage[] = [];
    const replied = new Promise<void>((resolve) => {
      peer.onmessage = (message) => {
        replies.push(message);
        resolve();
      };
    });
    await server.connect(serverSide);
    await peer.start();
    await peer.send({ jsonrpc: '2.0', id: null, method: 'tools/call' } as unknown as JSONRPCMessage);
    await peer.send({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: 'x',
    } as unknown as JSONRPCMessage);
    await replied;
    expect(replies).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32600, message: 'Invalid Request: "params" must be an object' },
      },
    ]);
    expect(errors).toEqual([
      'Unknown message type ("id" must be a string or a safe integer): {"jsonrpc":"2.0","id":null,"method":"tools/call"}',
      'Unknown message type ("params" must be an object): {"jsonrpc":"2.0","id":7,"method":"tools/call","params":"x"}',
    ]);
    await server.close();
  });

  it('runs what the transport had as onmessage first, and dispatches again after a reconnection', async () => {
    const client = leanDispatch(new Client({ name: 'host', version: '1.0.0' }));
    for (const round of [1, 2]) {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const seen: unknown[] = [];
      clientSide.onmessage = (message) => seen.push((message as { id?: unknown }).id);
      await leanServer().connect(serverSide);
      await client.connect(clientSide);
      const parses = countEnvelopeParses();
      expect(await client.request({ method: `custom/${round}` }, ResultSchema)).toEqual({
        echoed: `custom/${round}`,
      });
      expect(seen.at(-1)).toBeDefined();
      expect(parses()).toBe(0);
      vi.restoreAllMocks();
      await client.close();
    }
  });

  it('refuses a protocol without the SDK members it dispatches through', () => {
    expect(() => leanDispatch({ connect() {} })).toThrow(
      'this SDK protocol has no _onrequest to dispatch through',
    );
  });
});
