import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { jsonRpcShape } from './jsonRpcShape.js';

/** What the SDK's zod guards say a message is, in the order its `Protocol` asks them. */
function sdkKind(message: unknown): string {
  if (isJSONRPCResultResponse(message)) return 'result';
  if (isJSONRPCErrorResponse(message)) return 'error';
  if (isJSONRPCRequest(message)) return 'request';
  if (isJSONRPCNotification(message)) return 'notification';
  return 'invalid';
}

const RELATED = 'io.modelcontextprotocol/related-task';
const MESSAGES: readonly unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { a: [1] } } },
  { jsonrpc: '2.0', id: 'a', method: 'ping' },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: 'p', other: 1 } } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: 1.5 } } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { [RELATED]: { taskId: 't' } } } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { [RELATED]: { taskId: 3 } } } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: [] } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: 'text' },
  { jsonrpc: '2.0', id: 1, method: 'x', params: [1] },
  { jsonrpc: '2.0', id: 1, method: 'x', params: null },
  { jsonrpc: '2.0', id: 1.5, method: 'x' },
  { jsonrpc: '2.0', id: 2 ** 60, method: 'x' },
  { jsonrpc: '2.0', id: null, method: 'x' },
  { jsonrpc: '2.0', id: 1, method: 7 },
  { jsonrpc: '1.0', id: 1, method: 'x' },
  { id: 1, method: 'x' },
  { jsonrpc: '2.0', id: 1, method: 'x', extra: true },
  { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 2 } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', method: 'n', params: { _meta: { progressToken: true } } },
  { jsonrpc: '2.0', method: 'n', extra: 1 },
  { jsonrpc: '2.0', id: 3, result: {} },
  { jsonrpc: '2.0', id: 3, result: { content: [], _meta: { progressToken: 'p' } } },
  { jsonrpc: '2.0', id: 3, result: { _meta: 'm' } },
  { jsonrpc: '2.0', id: 3, result: 'done' },
  { jsonrpc: '2.0', id: 3, result: [] },
  { jsonrpc: '2.0', result: {} },
  { jsonrpc: '2.0', id: 3, result: {}, method: 'x' },
  { jsonrpc: '2.0', id: 3, result: {}, error: { code: 1, message: 'm' } },
  { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'bad', data: { why: 1 } } },
  { jsonrpc: '2.0', error: { code: -32700, message: 'parse error' } },
  { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } },
  { jsonrpc: '2.0', id: 4, error: { code: 1.5, message: 'm' } },
  { jsonrpc: '2.0', id: 4, error: { code: 1, message: 2 } },
  { jsonrpc: '2.0', id: 4, error: 'oops' },
  { jsonrpc: '2.0', id: 4, error: { code: 1, message: 'm', extra: 'kept' } },
  { jsonrpc: '2.0' },
  {},
  [],
  null,
  'text',
];

describe('jsonRpcShape', () => {
  it.each(MESSAGES.map((message) => [JSON.stringify(message), message]))(
    'says what the SDK envelope schemas say of %s',
    (_, message) => {
      expect(jsonRpcShape(message).kind).toBe(sdkKind(message));
    },
  );

  it('says why a message is invalid, with the id of a request that has a usable one', () => {
    expect(jsonRpcShape({ jsonrpc: '2.0', id: 7, method: 'x', params: 'p' })).toEqual({
      kind: 'invalid',
      reason: '"params" must be an object',
      id: 7,
    });
    expect(jsonRpcShape({ jsonrpc: '1.0', id: 'a', method: 'x' })).toEqual({
      kind: 'invalid',
      reason: '"jsonrpc" must be "2.0"',
      id: 'a',
    });
    expect(jsonRpcShape({ jsonrpc: '2.0', id: null, method: 'x' })).toEqual({
      kind: 'invalid',
      reason: '"id" must be a string or a safe integer',
    });
    expect(jsonRpcShape({ jsonrpc: '2.0', id: 3, result: 'done' })).toEqual({
      kind: 'invalid',
      reason: '"result" must be an object',
    });
  });
});
