import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  isJSONRPCRequest,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { readBody } from './readBody.js';
import { rpcError, sendJson } from './responses.js';

/** A POST body as read (`text`) and parsed (`json`), its JSON-RPC messages, and the requests among them. */
export interface JsonRpcBody {
  readonly text: string;
  readonly json: unknown;
  readonly messages: JSONRPCMessage[];
  readonly requests: JSONRPCRequest[];
}

/**
 * Reads a POST body as JSON-RPC (one message or a batch), or answers it at once and returns undefined: 413 when it
 * is too large, 400 with a parse error when it is not JSON.
 */
export async function readJsonRpc(
  req: IncomingMessage,
  res: ServerResponse,
): Promise<JsonRpcBody | undefined> {
  const text = await readBody(req);
  if (text === null) {
    sendJson(res, 413, rpcError(-32000, 'Payload too large'));
    return undefined;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    sendJson(res, 400, rpcError(-32700, 'Parse error: Invalid JSON'));
    return undefined;
  }
  const messages = (Array.isArray(body) ? body : [body]) as JSONRPCMessage[];
  return { text, json: body, messages, requests: messages.filter((message) => isJSONRPCRequest(message)) };
}
