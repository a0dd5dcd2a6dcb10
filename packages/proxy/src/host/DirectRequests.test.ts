import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ForwardedError } from '../upstream/ForwardedError.js';
import { type DirectExtra, type DirectHandler, DirectRequests } from './DirectRequests.js';

/** A transport that keeps what is sent on it, and resolves `next` with each message as it is sent. */
function recordingTransport() {
  const sent: { message: JSONRPCMessage; options: unknown }[] = [];
  let waiter: (() => void) | undefined;
  const transport = {
    send: async (message: JSONRPCMessage, options?: unknown) => {
      sent.push({ message, options });
      waiter?.();
    },
  } as unknown as Transport;
  const next = () =>
    new Promise<void>((resolve) => {
      waiter = resolve;
    });
  return { transport, sent, next };
}

/** A handler whose calls are kept and whose answer the test decides. */
function heldHandler() {
  const calls: { request: unknown; extra: DirectExtra; settle: (outcome: () => unknown) => void }[] = [];
  const handler: DirectHandler = (request, extra) =>
    new Promise((resolve, reject) => {
      calls.push({
        request,
        extra,
        settle: (outcome) => {
          try {
            resolve(outcome());
          } catch (error) {
            reject(error);
          }
        },
      });
    });
  return { handler, calls };
}

const call = (id: number, params: Record<string, unknown> = { name: 'echo', arguments: {} }) =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params }) as JSONRPCMessage;
const errors: Error[] = [];
const onerror = (error: Error) => errors.push(error);

describe('DirectRequests', () => {
  it('serves a forwarded request at once and answers as the SDK does: { result, jsonrpc, id }', async () => {
    const { handler, calls } = heldHandler();
    const { transport, sent, next } = recordingTransport();
    const direct = new DirectRequests(handler, onerror);
    expect(direct.request(call(3), transport)).toBe(true);
    // The handler runs in the same turn as the message.
    expect(calls).toHaveLength(1);
    expect(calls[0]?.request).toMatchObject({ method: 'tools/call', id: 3 });
    expect(calls[0]?.extra.requestId).toBe(3);
    const answered = next();
    calls[0]?.settle(() => ({ content: [{ type: 'text', text: 'ok' }] }));
    await answered;
    expect(JSON.stringify(sent[0]?.message)).toBe(
      '{"result":{"content":[{"type":"text","text":"ok"}]},"jsonrpc":"2.0","id":3}',
    );
  });

  it('leaves to the Server what it has rules of its own for: initialize, ping, custom methods, tasks', () => {
    const { handler, calls } = heldHandler();
    const { transport } = recordingTransport();
    const direct = new DirectRequests(handler, onerror);
    const request = (method: string, params?: Record<string, unknown>) =>
      ({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) }) as JSONRPCMessage;
    expect(direct.request(request('initialize', {}), transport)).toBe(false);
    expect(direct.request(request('ping'), transport)).toBe(false);
    expect(direct.request(request('acme/custom'), transport)).toBe(false);
    expect(direct.request(call(2, { name: 'echo', task: { ttl: 1000 } }), transport)).toBe(false);
    const related = { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } };
    expect(direct.request(call(4, { name: 'echo', ...related }), transport)).toBe(false);
    expect(direct.request({ jsonrpc: '2.0', method: 'tools/call' } as JSONRPCMessage, transport)).toBe(false);
    expect(calls).toHaveLength(0);
  });

  it('answers a failure with its code, message and data, and -32603 for an error without a code', async () => {
    const { handler, calls } = heldHandler();
    const { transport, sent, next } = recordingTransport();
    const direct = new DirectRequests(handler, onerror);
    direct.request(call(5), transport);
    direct.request(call(6), transport);
    let answered = next();
    calls[0]?.settle(() => {
      throw new ForwardedError(-32000, 'upstream down', { classification: 'transient' });
    });
    await answered;
    answered = next();
    calls[1]?.settle(() => {
      throw new Error('boom');
    });
    await answered;
    expect(sent.map((s) => s.message)).toEqual([
      {
        jsonrpc: '2.0',
        id: 5,
        error: { code: -32000, message: 'upstream down', data: { classification: 'transient' } },
      },
      { jsonrpc: '2.0', id: 6, error: { code: -32603, message: 'boom' } },
    ]);
  });

  it('aborts the request a notifications/cancelled names, with its reason, and answers nothing', async () => {
    const { handler, calls } = heldHandler();
    const { transport, sent } = recordingTransport();
    const direct = new DirectRequests(handler, onerror);
    direct.request(call(7), transport);
    direct.request(call(8), transport);
    direct.cancelled({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7, reason: 'user stopped' },
    } as JSONRPCMessage);
    expect(calls[0]?.extra.signal.aborted).toBe(true);
    expect(calls[0]?.extra.signal.reason).toBe('user stopped');
    expect(calls[1]?.extra.signal.aborted).toBe(false);
    calls[0]?.settle(() => ({ content: [] }));
    // Progress of a cancelled request is not sent either.
    await calls[0]?.extra.sendNotification({ method: 'notifications/progress', params: { progress: 1 } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual([]);
  });

  it("sends a request's notifications (progress) on its own stream, and aborts all when the connection ends", async () => {
    const { handler, calls } = heldHandler();
    const { transport, sent } = recordingTransport();
    const direct = new DirectRequests(handler, onerror);
    direct.request(call(9), transport);
    await calls[0]?.extra.sendNotification({
      method: 'notifications/progress',
      params: { progressToken: 'p', progress: 1 },
    });
    expect(sent).toEqual([
      {
        message: {
          method: 'notifications/progress',
          params: { progressToken: 'p', progress: 1 },
          jsonrpc: '2.0',
        },
        options: { relatedRequestId: 9 },
      },
    ]);
    direct.close();
    expect(calls[0]?.extra.signal.aborted).toBe(true);
  });

  it('reports a response it could not send, naming the failure', async () => {
    const failing = {
      send: async () => {
        throw new Error('pipe closed');
      },
    } as unknown as Transport;
    const seen: Error[] = [];
    const direct = new DirectRequests(
      async () => ({ content: [] }),
      (error) => seen.push(error),
    );
    direct.request(call(10), failing);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen.map((e) => e.message)).toEqual(['Failed to send response: Error: pipe closed']);
  });
});
