import { type CallToolResult, ErrorCode, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Fault } from '../plan/FaultPlan.js';

/** How a JSON-RPC-level fault answers a request: a result or an error, without `jsonrpc` and `id`. */
export type Outcome =
  | { result: CallToolResult }
  | { error: { code: number; message: string; data?: Record<string, unknown> } };

const toolErrorResult = (text: string): CallToolResult => ({
  content: [{ type: 'text', text }],
  isError: true,
});

/** `tool_error`: an `isError` result with the fault's text. */
export const toolError = (fault: Extract<Fault, { kind: 'tool_error' }>): Outcome => ({
  result: toolErrorResult(fault.text ?? 'Service temporarily unavailable'),
});

/** The message an `mcp_error` fault without one sends: the code's name in the schema or the draft registry. */
const MCP_ERROR_MESSAGES: Readonly<Record<number, string>> = {
  [-32603]: 'Internal error',
  [-32020]: 'Header mismatch',
  [-32021]: 'Missing required client capability',
  [-32022]: 'Unsupported protocol version',
  [-32023]: 'Rate limited',
  [-32024]: 'Unavailable',
  [-32025]: 'Request too large',
  [-32026]: 'Stale state',
  [-32027]: 'Unsupported feature',
};

/** `mcp_error`: a JSON-RPC error with the fault's code, message and data. */
export const mcpError = (fault: Extract<Fault, { kind: 'mcp_error' }>): Outcome => ({
  error: {
    code: fault.code,
    message: fault.message ?? MCP_ERROR_MESSAGES[fault.code] ?? 'Server error',
    ...(fault.data === undefined ? {} : { data: fault.data }),
  },
});

/** `invalid_params`: the TypeScript SDK's `isError` validation result, or a JSON-RPC -32602 error. */
export function invalidParams(
  fault: Extract<Fault, { kind: 'invalid_params' }>,
  request: JSONRPCRequest,
): Outcome {
  const detail = fault.message ?? 'Invalid input: expected string, received number';
  const tool = request.params?.name;
  const message =
    typeof tool === 'string' ? `Invalid arguments for tool ${tool}: ${detail}` : `Invalid params: ${detail}`;
  return fault.mode === 'error'
    ? { error: { code: ErrorCode.InvalidParams, message } }
    : { result: toolErrorResult(`MCP error ${ErrorCode.InvalidParams}: Input validation error: ${message}`) };
}

/**
 * The outcome of a fault answered in place of the server (`invalid_params`, `tool_error`, `mcp_error`), or null for
 * others.
 */
export function localOutcome(fault: Fault | null | undefined, request: JSONRPCRequest): Outcome | null {
  if (fault?.kind === 'mcp_error') return mcpError(fault);
  if (fault?.kind === 'invalid_params') return invalidParams(fault, request);
  if (fault?.kind === 'tool_error') return toolError(fault);
  return null;
}
