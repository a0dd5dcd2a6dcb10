import { isResilienceError } from '@mcp-resilience/middleware';
import { CLASSIFICATION_META_KEY, type McpClassificationMeta } from '@mcp-resilience/middleware/mcp';
import { ForwardedError } from '../upstream/ForwardedError.js';

/** JSON-RPC codes the SDK client makes up locally (timeout or abort, connection closed): not the server's. */
const LOCAL_CODES = new Set([-32000, -32001]);

/**
 * The JSON-RPC error a host gets for a request that failed for good (other than `tools/call`, whose failures are
 * results): the upstream's own code, message and `data` when the upstream answered an error, else -32603 with the
 * resilience layer's sentence; `data` always carries the classification under `io.mcp-resilience/classification`
 * (class, type, attempts, why it stopped, `retryAfterMs`), so the host can tell that retrying already happened.
 */
export function toJsonRpcError(error: unknown): unknown {
  if (!isResilienceError(error)) return error;
  const meta: McpClassificationMeta = {
    ...error.classification,
    attempts: error.attempts,
    reason: error.reason,
  };
  const upstream = upstreamError(error.cause);
  const data = {
    ...(isRecord(upstream?.data) ? upstream.data : {}),
    [CLASSIFICATION_META_KEY]: meta,
  };
  if (upstream) return new ForwardedError(upstream.code, upstream.message, data);
  return new ForwardedError(-32603, `mcp-resilience: ${error.message}`, data);
}

/** An error response from the upstream server (an `McpError` of SDK v1), with its message unprefixed. */
function upstreamError(cause: unknown): { code: number; message: string; data: unknown } | undefined {
  if (typeof cause !== 'object' || cause === null) return undefined;
  const { code, message, data } = cause as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof code !== 'number' || !Number.isSafeInteger(code) || LOCAL_CODES.has(code)) return undefined;
  if ((cause as { name?: unknown }).name !== 'McpError') return undefined;
  const text = typeof message === 'string' ? message.replace(/^MCP error -?\d+: /, '') : 'error';
  return { code, message: text, data };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
