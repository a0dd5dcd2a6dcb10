import {
  ATTR_ERROR_TYPE,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
  ATTR_RPC_RESPONSE_STATUS_CODE,
} from '../otel/semconv.js';
import { annotateAttempt } from '../record/attemptAnnotations.js';
import { jsonRpcErrorInHttpBody } from './httpJsonRpcBody.js';
import type { JsonRpcMessageLike, McpClientLike, TransportLike } from './McpClientLike.js';
import type { ObservedFetch } from './observeFetch.js';
import { jsonRpcCodeOf } from './protocolRevisionRule.js';
import { StreamBrokenError } from './StreamBrokenError.js';
import { type RequestArgs, requestArgs, sessionIdOf } from './sdkLine.js';

type AnyRequest = { method: string; params?: Record<string, unknown> };
type RequestId = string | number;

/** One attempt of a request, as `withResilience` sends it through the SDK's own `request()`. */
export interface AttemptSend {
  readonly client: McpClientLike;
  readonly self: unknown;
  readonly originalRequest: (...args: unknown[]) => Promise<unknown>;
  readonly request: AnyRequest;
  readonly args: RequestArgs;
  /** The attempt's signal: aborted by the caller, the call's deadline or the attempt's time limit. */
  readonly signal: AbortSignal;
  /** The attempt's trace-context carrier: the key of its telemetry annotations. */
  readonly traceContext: object;
  readonly fetch: ObservedFetch | undefined;
  readonly protocolVersion: string | undefined;
}

/** The request being sent right now (JavaScript runs one at a time): `send` fills in the id the SDK gave it. */
let sending: { method: string; id?: RequestId } | undefined;
const watchedTransports = new WeakSet<object>();

/**
 * Wraps the transport's `send` (once) so that the attempt learns the JSON-RPC id of its request: both SDK lines
 * allocate it inside `request()` and hand the message to `send` synchronously.
 */
function watchSend(transport: TransportLike): void {
  if (watchedTransports.has(transport)) return;
  watchedTransports.add(transport);
  const send = transport.send;
  transport.send = function (this: TransportLike, message: JsonRpcMessageLike, options?: object) {
    if (
      sending &&
      sending.id === undefined &&
      message.method === sending.method &&
      message.id !== undefined
    ) {
      sending.id = message.id;
    }
    return send.call(this, message, options);
  };
}

/**
 * Sends one attempt and waits for its result, with:
 * - its own abort signal handed to the SDK, so that when the attempt ends early (the caller's signal, the call's
 *   deadline, the attempt's time limit) the SDK tells the server: `notifications/cancelled` (v1; v2 on stdio and on
 *   2025-era connections), or closing the request's stream (v2 on a 2026-07-28 Streamable HTTP connection);
 * - a lost response stream detected at once (with `observeFetch()`): a `StreamBrokenError` instead of waiting for
 *   the SDK's timeout, and the SDK's pending request cancelled;
 * - the MCP conventions' attempt attributes annotated for the recorders: `jsonrpc.request.id`,
 *   `mcp.protocol.version`, `mcp.session.id` (only where there is a session), and on a JSON-RPC error response its
 *   code as `rpc.response.status_code` and `error.type`.
 */
export async function sendAttempt(attempt: AttemptSend): Promise<unknown> {
  const { client, request, args, signal, traceContext } = attempt;
  const transport = client.transport as TransportLike | undefined;
  if (transport) watchSend(transport);
  const controller = new AbortController();
  const forward = () => controller.abort(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener('abort', forward, { once: true });
  const annotations: Record<string, string> = {};
  if (attempt.protocolVersion) annotations[ATTR_MCP_PROTOCOL_VERSION] = attempt.protocolVersion;
  const session = sessionIdOf(transport, attempt.protocolVersion);
  if (session) annotations[ATTR_MCP_SESSION_ID] = session;

  let unsubscribe: (() => void) | undefined;
  try {
    const slot: { method: string; id?: RequestId } = { method: request.method };
    sending = slot;
    let pending: Promise<unknown>;
    try {
      pending = attempt.originalRequest.call(
        attempt.self,
        request,
        ...requestArgs(args, { ...args.options, signal: controller.signal }),
      );
    } finally {
      sending = undefined;
    }
    const id = slot.id;
    if (id !== undefined) annotations[ATTR_JSONRPC_REQUEST_ID] = String(id);
    annotateAttempt(traceContext, annotations);
    const onBroken = attempt.fetch?.onStreamBroken;
    if (id === undefined || typeof onBroken !== 'function') return await pending;
    const broken = new Promise<never>((_, reject) => {
      unsubscribe = onBroken((requestId, cause) => {
        if (requestId !== id) return;
        const error = new StreamBrokenError(id, cause);
        reject(error);
        controller.abort(error); // the SDK forgets the request (and tells the server, where it can)
      });
    });
    pending.catch(() => {});
    return await Promise.race([pending, broken]);
  } catch (error) {
    const code = serverCode(error);
    if (code !== undefined) {
      annotateAttempt(traceContext, { [ATTR_RPC_RESPONSE_STATUS_CODE]: code, [ATTR_ERROR_TYPE]: code });
    }
    throw error;
  } finally {
    unsubscribe?.();
    signal.removeEventListener('abort', forward);
  }
}

/**
 * The JSON-RPC code of an error response from the server, as a string. v1's local `McpError`s (-32001 timeout or
 * abort, -32000 `Connection closed`) answer no response: not a server code.
 */
function serverCode(error: unknown): string | undefined {
  const code = jsonRpcCodeOf(error) ?? jsonRpcErrorInHttpBody(error)?.code;
  if (code === undefined || code === -32001) return undefined;
  if (code === -32000 && /connection closed/i.test((error as Error).message)) return undefined;
  return String(code);
}
