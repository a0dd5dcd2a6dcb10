/**
 * A JSON-RPC error to answer a host with: the SDK's `Protocol` sends `code`, `message` and `data` as they are
 * (an `McpError` would prefix the message with `MCP error <code>: ` once more).
 */
export class ForwardedError extends Error {
  override readonly name = 'ForwardedError';
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}
