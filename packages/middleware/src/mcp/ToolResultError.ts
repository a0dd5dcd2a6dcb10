/** A `tools/call` result, as both SDK lines return it (the parts read here). */
export interface CallToolResult {
  content: unknown[];
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

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
    .map((block) => {
      const { type, text } = (block ?? {}) as { type?: unknown; text?: unknown };
      return type === 'text' && typeof text === 'string' ? text : '';
    })
    .filter(Boolean)
    .join('\n');
}
