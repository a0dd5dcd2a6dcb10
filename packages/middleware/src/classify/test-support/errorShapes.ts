/**
 * Realistic error shapes for the classifier's tests, built the way their libraries build them (without importing
 * those libraries: the core does not depend on the MCP SDK, undici or axios).
 */

/** The MCP SDK's `McpError`: `name` `McpError`, numeric `code`, `data` always present (maybe `undefined`). */
export class McpError extends Error {
  override readonly name = 'McpError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`MCP error ${code}: ${message}`);
  }
}

/** The MCP SDK's `StreamableHTTPError`: it never sets `name`, `code` is the HTTP status (or -1). */
export class StreamableHTTPError extends Error {
  constructor(
    readonly code: number | undefined,
    message: string,
  ) {
    super(`Streamable HTTP error: ${message}`);
  }
}

/** A Node system error (`connect ECONNREFUSED 127.0.0.1:1`). */
export function systemError(code: string, message: string, name = 'Error'): Error {
  const error = new Error(message);
  return Object.assign(error, { code, name });
}

/** What `fetch` rejects with when the connection fails: `TypeError('fetch failed', { cause })`. */
export function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

/** An axios error with a response. */
export function axiosError(status: number, headers: Record<string, string> = {}): Error {
  return Object.assign(new Error(`Request failed with status code ${status}`), {
    name: 'AxiosError',
    code: status >= 500 ? 'ERR_BAD_RESPONSE' : 'ERR_BAD_REQUEST',
    response: { status, statusText: '', headers, data: '' },
  });
}

/** An OpenAI-SDK-like `APIError` (`status`, `code`, `headers` on the error). */
export function openAiError(
  status: number,
  message: string,
  code?: string,
  headers: Record<string, string> = {},
) {
  return Object.assign(new Error(`${status} ${message}`), { name: 'RateLimitError', status, code, headers });
}

/** An MCP `CallToolResult` with `isError: true`. */
export const toolError = (text: string) => ({ content: [{ type: 'text', text }], isError: true });
