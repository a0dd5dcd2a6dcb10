import { type CallToolResult, ErrorCode, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Fault } from '../plan/FaultPlan.js';

/** How a JSON-RPC-level fault answers a request: a result or an error, without `jsonrpc` and `id`. */
export type Outcome = { result: CallToolResult } | { error: { code: number; message: string } };

const toolErrorResult = (text: string): CallToolResult => ({
  content: [{ type: 'text', text }],
  isError: true,
});

/** `tool_error`: an `isError` result with the fault's text. */
export const toolError = (fault: Extract<Fault, { kind: 'tool_error' }>): Outcome => ({
  result: toolErrorResult(fault.text ?? 'Service temporarily unavailable'),
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

/** The outcome of a fault answered in place of the server (`invalid_params`, `tool_error`), or null for others. */
export function localOutcome(fault: Fault | null | undefined, request: JSONRPCRequest): Outcome | null {
  if (fault?.kind === 'invalid_params') return invalidParams(fault, request);
  if (fault?.kind === 'tool_error') return toolError(fault);
  return null;
}
