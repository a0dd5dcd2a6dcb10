import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, McpError } from '@modelcontextprotocol/sdk/types.js';
import { type JsonRpcShape, jsonRpcShape } from './jsonRpcShape.js';

type Message = Record<string, unknown> & { id?: string | number };
type Response = { id: string | number; result?: { task?: { taskId?: unknown } }; error?: WireError };
type WireError = { code: number; message: string; data?: unknown };

/** The members of an SDK 1.x `Protocol` (`Client`, `Server`) that the dispatch uses. */
interface ProtocolInternals {
  connect(transport: Transport): Promise<void>;
  _onrequest(request: Message, extra: unknown): void;
  _onnotification(notification: Message): void;
  _onresponse(response: Response): void;
  _onerror(error: Error): void;
  _cleanupTimeout(id: number): void;
  readonly _requestResolvers: Map<number, (response: Response | McpError) => void>;
  readonly _responseHandlers: Map<number, (response: Response | McpError) => void>;
  readonly _progressHandlers: Map<number, unknown>;
  readonly _taskProgressTokens: Map<string, number>;
}

/**
 * Requests served before the protocol sees them (the host `Server`'s forwarded requests: `DirectRequests`), and
 * the cancellations that may name them.
 */
export interface DirectDispatch {
  /** Serves the request and answers `true`, or answers `false` and leaves it to the protocol. */
  request(message: JSONRPCMessage, transport: Transport): boolean;
  /** Sees each `notifications/cancelled` before the protocol does. */
  cancelled(message: JSONRPCMessage): void;
}

const MEMBERS = [
  'connect',
  '_onrequest',
  '_onnotification',
  '_onresponse',
  '_onerror',
  '_cleanupTimeout',
] as const;

/**
 * Gives an SDK 1.x `Client` or `Server` a dispatch of incoming messages that checks each envelope with
 * {@link jsonRpcShape} instead of the SDK's zod schemas (up to three `safeParse` of each message on arrival, and
 * up to three more of each response), then hands it to the same SDK handlers (`_onrequest`, `_onnotification`,
 * and the response bookkeeping of `_onresponse`, rewritten here without the parses). Same outcomes as the SDK's,
 * one better: a request with a usable id but a malformed envelope is answered with `-32600` (the SDK only
 * reports it on `onerror`, and the peer waits). Installed on each transport the protocol connects (the first and
 * every reconnection), when the SDK starts it; what the transport's `onmessage` was before still runs first.
 * Throws when the protocol lacks one of those members (an SDK that changed its internals). With `direct`, a request
 * it serves never reaches the protocol.
 */
export function leanDispatch<P extends object>(protocol: P, direct?: DirectDispatch): P {
  const p = protocol as unknown as ProtocolInternals;
  const missing = MEMBERS.find((name) => typeof p[name] !== 'function');
  if (missing !== undefined)
    throw new Error(`mcp-resilience: this SDK protocol has no ${missing} to dispatch through`);
  const connect = p.connect.bind(protocol);
  p.connect = (transport) => {
    const before = transport.onmessage;
    const start = transport.start;
    // The SDK sets its own `onmessage` in `connect`, then starts the transport: the lean one replaces it there.
    transport.start = function (this: Transport) {
      transport.start = start;
      transport.onmessage = (message, extra) => {
        before?.call(transport, message, extra);
        dispatch(p, transport, message, extra, direct);
      };
      return start.call(this);
    };
    return connect(transport);
  };
  p._onresponse = (response) => onResponse(p, response);
  return protocol;
}

function dispatch(
  p: ProtocolInternals,
  transport: Transport,
  message: JSONRPCMessage,
  extra: unknown,
  direct: DirectDispatch | undefined,
): void {
  const shape = jsonRpcShape(message);
  const m = message as Message;
  if (shape.kind === 'invalid') refuse(p, transport, shape, message);
  else if (shape.kind === 'request') {
    if (direct?.request(message, transport) !== true) p._onrequest(m, extra);
  } else if (shape.kind === 'notification') {
    if (m.method === 'notifications/cancelled') direct?.cancelled(message);
    p._onnotification(m);
  } else p._onresponse(m as Response);
}

/** A message that is none of the four: reported as the SDK does, and answered when it is a request with an id. */
function refuse(
  p: ProtocolInternals,
  transport: Transport,
  shape: Extract<JsonRpcShape, { kind: 'invalid' }>,
  message: JSONRPCMessage,
): void {
  p._onerror(new Error(`Unknown message type (${shape.reason}): ${JSON.stringify(message)}`));
  if (shape.id === undefined) return;
  const error = { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${shape.reason}` };
  transport
    .send({ jsonrpc: '2.0', id: shape.id, error })
    .catch((failure: unknown) => p._onerror(new Error(`Failed to send an error response: ${failure}`)));
}

/** The SDK's `_onresponse` (1.32), for a message already known to be a result or an error response. */
function onResponse(p: ProtocolInternals, response: Response): void {
  const id = Number(response.id);
  const error = response.error;
  const resolver = p._requestResolvers.get(id);
  if (resolver) {
    p._requestResolvers.delete(id);
    resolver(error ? new McpError(error.code, error.message, error.data) : response);
    return;
  }
  const handler = p._responseHandlers.get(id);
  if (handler === undefined) {
    p._onerror(new Error(`Received a response for an unknown message ID: ${JSON.stringify(response)}`));
    return;
  }
  p._responseHandlers.delete(id);
  p._cleanupTimeout(id);
  // A task's result keeps its progress handler (its progress goes on under the task).
  const task = error ? undefined : response.result?.task;
  if (typeof task === 'object' && task !== null && typeof task.taskId === 'string') {
    p._taskProgressTokens.set(task.taskId, id);
  } else p._progressHandlers.delete(id);
  handler(error ? McpError.fromError(error.code, error.message, error.data) : response);
}
