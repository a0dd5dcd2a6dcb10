/**
 * A JSON-RPC error to answer a host with: the SDK's `Protocol` sends `code`, `message` and `data` as they are
 * (an `McpError` would prefix the message with `MCP error <code>: ` once more). `momentary`: the proxy refused
 * because of the moment (other calls in flight, a limit reached, no answer in time), not because of the request:
 * the failure of the call it happened in is not remembered for the model's repeats.
 */
export class ForwardedError extends Error {
  override readonly name = 'ForwardedError';
  readonly code: number;
  readonly data: unknown;
  readonly momentary: boolean;

  constructor(code: number, message: string, data?: unknown, { momentary = false } = {}) {
    super(message);
    this.code = code;
    this.data = data;
    this.momentary = momentary;
  }
}

/** Whether `error` is a refusal of the proxy's that depended on the moment. */
export const isMomentary = (error: unknown): boolean => error instanceof ForwardedError && error.momentary;
