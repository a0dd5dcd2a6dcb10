import { sdkHttpStatus } from './v2/sdkV2Errors.js';

/** What an HTTP error's body said, when it is a JSON-RPC error response to the request itself. */
export interface JsonRpcBodyError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

const V1_BODY = /^Streamable HTTP error: Error POSTing to endpoint: (\{[\s\S]*\})\s*$/;
/** Bodies longer than this are not parsed. */
const MAX_BODY = 64 * 1024;

/**
 * The JSON-RPC error inside an HTTP error response (v2 `SdkHttpError.data.text`, v1 `StreamableHTTPError` message),
 * when the response answers the request itself (a non-null `id`): a 2026-07-28 server answers "method not found"
 * with HTTP 404 and such a body. A body with `id: null` is the transport's own (a session not found, a rate limit)
 * and is left to the status.
 */
export function jsonRpcErrorInHttpBody(error: unknown): JsonRpcBodyError | undefined {
  if (!(error instanceof Error)) return undefined;
  let text: unknown;
  if (sdkHttpStatus(error) !== undefined) text = (error as { data?: { text?: unknown } }).data?.text;
  else text = V1_BODY.exec(error.message)?.[1];
  if (typeof text !== 'string' || text.length > MAX_BODY) return undefined;
  try {
    const body = JSON.parse(text) as {
      id?: unknown;
      error?: { code?: unknown; message?: unknown; data?: unknown };
    };
    const code = body?.error?.code;
    if (body.id === null || body.id === undefined || typeof code !== 'number' || !Number.isInteger(code)) {
      return undefined;
    }
    const message = typeof body.error?.message === 'string' ? body.error.message : '';
    return body.error && 'data' in body.error ? { code, message, data: body.error.data } : { code, message };
  } catch {
    return undefined;
  }
}
