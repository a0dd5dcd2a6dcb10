import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * A `tools/call` result with `isError: true`, turned into a failure so it can be classified from its text.
 * It never leaves the MCP edge: the caller gets the result back.
 */
export class ToolResultError extends Error {
  override readonly name = 'ToolResultError';
  constructor(readonly result: CallToolResult) {
    super(toolResultText(result) || 'tool returned isError without text');
  }
}

/** The text blocks of a tool result, joined. */
export function toolResultText(result: CallToolResult): string {
  const content = Array.isArray(result.content) ? result.content : [];
  return content
    .map((block) => (block && block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .filter(Boolean)
    .join('\n');
}
