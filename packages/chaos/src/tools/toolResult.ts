import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A tool result with one text block; objects are sent as JSON text. */
export function toolResult(value: unknown, isError = false): CallToolResult {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return isError ? { content: [{ type: 'text', text }], isError } : { content: [{ type: 'text', text }] };
}
