import type { Classification, ErrorType } from '../classify/Classification.js';
import type { FunctionRule } from '../classify/ClassificationRule.js';
import { classifyError } from '../classify/classifyError.js';
import { capMessage } from '../classify/readClassification.js';
import { retryAfterMsOf } from '../classify/retryAfter.js';
import { classifyHttpStatus } from '../classify/rules/httpStatus.js';
import { jsonRpcErrorInHttpBody } from './httpJsonRpcBody.js';
import type { HttpFailure } from './observeFetch.js';
import { protocolRevisionRule } from './protocolRevisionRule.js';
import { ReconnectError } from './ReconnectError.js';
import { StreamBrokenError } from './StreamBrokenError.js';
import { ToolResultError } from './ToolResultError.js';
import { isInstance, SseErrorV1, StreamableHTTPErrorV1, UnauthorizedErrorV1 } from './v1/sdkV1Errors.js';
import { sdkErrorRule } from './v2/sdkErrorRule.js';
import { hasV2Brand, sdkHttpStatus } from './v2/sdkV2Errors.js';

/** What the MCP rules may know about a failed attempt besides the error itself. */
export interface McpRuleContext {
  /** The failed HTTP response(s) the `observeFetch()` saw during the attempt that threw `error`. */
  readonly httpFailure?: (error: unknown, status: number) => HttpFailure | undefined;
  /**
   * Whether the transport had an MCP session id when the attempt that threw `error` ran. Never true for a
   * 2026-07-28 peer (no protocol sessions): its 404 or 400 is then an HTTP status, never an expired session.
   */
  readonly hadSession?: (error: unknown) => boolean;
  /** Whether the attempt that threw `error` ran on a sessionless protocol revision (2026-07-28 and later). */
  readonly sessionless?: (error: unknown) => boolean;
}

/**
 * The MCP-aware classification rules, for both SDK lines (v1 `@modelcontextprotocol/sdk`, v2
 * `@modelcontextprotocol/client`). `withResilience` runs them after the user's rules and before the built-in ones
 * (which already know JSON-RPC codes: -32602 non-retryable, -32001 with `data` a timeout and without a caller abort,
 * -32042 needs a human, ...):
 * - a failed reconnection (`ReconnectError`): by its cause, `not_sent`;
 * - `isError` tool results (as `ToolResultError`): classified from their text, never counted by a breaker;
 * - a response stream that broke before the response (`StreamBrokenError`): the request is lost, `unknown`;
 * - the 2026-07-28 codes (-32020, -32021, -32022) and resource "not found" (-32602 with `data: { uri }`);
 * - v1 `StreamableHTTPError`, v2 `SdkHttpError` and the SSE transport's errors: by status and body, session
 *   expiry (only where there is a session), `Retry-After`;
 * - v2 `SdkError` codes (`REQUEST_TIMEOUT`, `CONNECTION_CLOSED`, ...);
 * - `UnauthorizedError` and the SDKs' OAuth errors; `Error('Not connected')`.
 */
export function mcpRules(context: McpRuleContext = {}): FunctionRule[] {
  return [
    reconnectFailure,
    toolResult,
    streamBroken,
    protocolRevisionRule,
    httpJsonRpcBody,
    httpTransport(context),
    sdkErrorRule,
    authorization,
    connection,
  ];
}

/**
 * The response stream of a request broke before its response, and the transport cannot resume it (2026-07-28 has
 * no resumption; a 2025-11-25 stream without event ids cannot be resumed either): the request is lost and may have
 * run. Retryable, and re-issued (with a new request id) only when safe to repeat.
 */
const streamBroken: FunctionRule = (error) =>
  error instanceof StreamBrokenError
    ? {
        class: 'retryable',
        type: 'network',
        execution: 'unknown',
        source: 'mcp.http.stream_broken',
        message: capMessage(error.message),
      }
    : undefined;

/** A failed reconnection, before the request was sent: classified by its cause, and certainly `not_sent`. */
const reconnectFailure: FunctionRule = (error, context) => {
  if (!(error instanceof ReconnectError)) return undefined;
  const cause = classifyError(error.cause, context);
  return { ...cause, execution: 'not_sent', source: `mcp.reconnect.${cause.source}` };
};

/** Tool result types that would make the loop re-initialize the MCP session: in a tool's text they are upstream's. */
const UPSTREAM_CONNECTION: ReadonlySet<ErrorType> = new Set(['connection_closed', 'session_expired']);

/**
 * A `tools/call` result with `isError: true`: classified from its text by the built-in rules (JSON-RPC codes,
 * validation wording, rate limits with their delay, 5xx and timeout wording); a text they do not recognise is a
 * non-retryable `tool_error`. Such a result says nothing about the server's health: always `healthNeutral`.
 */
const toolResult: FunctionRule = (error, context) => {
  if (!(error instanceof ToolResultError)) return undefined;
  const fromText = classifyError(error.result, { ...context, rules: [] });
  const base = { message: fromText.message ?? error.message, healthNeutral: true } as const;
  if (fromText.source === 'tool_result' || fromText.source === 'default') {
    return {
      class: 'non_retryable',
      type: 'tool_error',
      execution: 'executed',
      source: 'mcp.tool_result',
      ...base,
    };
  }
  // The server answered: what its tool did is at worst unknown, never "not sent" for a failure that may be retried.
  const execution =
    fromText.execution === 'not_sent' && fromText.class !== 'non_retryable' ? 'unknown' : fromText.execution;
  const upstream = fromText.class === 'conditional' && UPSTREAM_CONNECTION.has(fromText.type);
  return {
    ...fromText,
    ...base,
    ...(upstream ? { class: 'retryable', type: 'network' } : {}),
    execution,
    source: `mcp.tool_result.${fromText.source}`,
  };
};

/**
 * An HTTP error whose body is the JSON-RPC error response to the request (2026-07-28 servers answer "method not
 * found" with 404 and such a body): classified by its JSON-RPC code, as if it had come in-band.
 */
const httpJsonRpcBody: FunctionRule = (error, context) => {
  const body = jsonRpcErrorInHttpBody(error);
  if (body === undefined) return undefined;
  const inBand = Object.assign(new Error(body.message), {
    name: 'ProtocolError',
    code: body.code,
    data: body.data,
  });
  const verdict =
    (protocolRevisionRule(inBand, context) as Classification | undefined) ??
    classifyError(inBand, { ...context, rules: [] });
  return { ...verdict, source: `mcp.http.jsonrpc_body.${verdict.source}` };
};

const STREAMABLE_PREFIX = 'Streamable HTTP error: ';
const SSE_PREFIX = 'SSE error: ';
/** The SSE transport's POST failure: `Error POSTing to endpoint (HTTP 429): <body>`. */
const SSE_POST = /^Error POSTing to endpoint \(HTTP (\d{3})\)/;
/** A 400 about the session (server-everything: `Bad Request: No valid session ID provided`). */
const SESSION_WORD = /session/i;

/** The HTTP status of an SDK transport error, or `undefined` when it is not one (`0` when it has none). */
function httpStatusOf(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  const numeric = typeof code === 'number' ? code : undefined;
  const v2 = sdkHttpStatus(error);
  if (v2 !== undefined) return v2;
  // Duck typing as well: the SDK ships ESM and CJS builds, and `instanceof` fails across them.
  if (isInstance(error, StreamableHTTPErrorV1) || error.message.startsWith(STREAMABLE_PREFIX)) {
    if (code === undefined || numeric !== undefined) return numeric ?? 0;
  }
  if (isInstance(error, SseErrorV1) || error.message.startsWith(SSE_PREFIX)) {
    return numeric !== undefined && numeric >= 100 ? numeric : undefined;
  }
  const post = SSE_POST.exec(error.message);
  return post ? Number(post[1]) : undefined;
}

/**
 * `StreamableHTTPError` (status in `code`, -1 for a wrong content type, the body in the message), `SseError` and
 * the SSE transport's POST errors. An expired session (404 on a request that carried a session id, or a 400 about
 * the session) is `session_expired`, which `reconnect` recovers; other statuses are classified as HTTP statuses,
 * with the `Retry-After` that the `observeFetch()` saw.
 */
const httpTransport =
  (deps: McpRuleContext): FunctionRule =>
  (error, context) => {
    const status = httpStatusOf(error);
    if (status === undefined || status === 0) return undefined;
    const message = capMessage((error as Error).message);
    if (status === -1) {
      return {
        class: 'non_retryable',
        type: 'invalid_request',
        execution: 'unknown',
        source: 'mcp.http.content_type',
        message,
      };
    }
    const aboutSession = SESSION_WORD.test(message) && deps.sessionless?.(error) !== true;
    if (
      (status === 404 && (aboutSession || deps.hadSession?.(error) === true)) ||
      (status === 400 && aboutSession)
    ) {
      return {
        class: 'conditional',
        type: 'session_expired',
        execution: 'not_sent',
        source: 'mcp.http.session',
        message,
      };
    }
    // Without sessions (2026-07-28), a body about a session cannot mean an expired one: the status alone decides.
    const verdict = classifyHttpStatus(status, deps.sessionless?.(error) === true ? [] : [message]);
    if (verdict === undefined) return undefined;
    const seen = deps.httpFailure?.(error, status);
    // The header is the most structured signal; a body that says "retry after 2s" is the fallback.
    const retryAfterMs =
      verdict.class === 'non_retryable'
        ? undefined
        : (seen?.retryAfterMs ?? retryAfterMsOf(message, context.now));
    const classification: Classification = { ...verdict, source: 'mcp.http.status', message };
    return retryAfterMs === undefined ? classification : { ...classification, retryAfterMs };
  };

/** OAuth `errorCode`s of the SDK's `OAuthError` subclasses that waiting can fix. */
const OAUTH_TRANSIENT: Readonly<Record<string, Pick<Classification, 'class' | 'type'>>> = {
  temporarily_unavailable: { class: 'retryable', type: 'unavailable' },
  server_error: { class: 'retryable', type: 'server_error' },
  too_many_requests: { class: 'conditional', type: 'rate_limited' },
};
const OAUTH_FORBIDDEN: ReadonlySet<string> = new Set([
  'access_denied',
  'insufficient_scope',
  'invalid_scope',
]);

/**
 * `UnauthorizedError` (the auth flow needs a user, e.g. a redirect): non-retryable `unauthorized`, not sent.
 * The SDK's `OAuthError` subclasses by `errorCode`: `temporarily_unavailable` and `server_error` are retryable,
 * `too_many_requests` is a rate limit, `access_denied` / `insufficient_scope` / `invalid_scope` are `forbidden`,
 * the others (`invalid_grant`, `invalid_client`, `invalid_token`, ...) `unauthorized`.
 */
const authorization: FunctionRule = (error) => {
  if (
    isInstance(error, UnauthorizedErrorV1) ||
    hasV2Brand(error, 'UnauthorizedError') ||
    (error instanceof Error && error.name === 'UnauthorizedError')
  ) {
    return {
      class: 'non_retryable',
      type: 'unauthorized',
      execution: 'not_sent',
      source: 'mcp.unauthorized',
    };
  }
  if (
    !(error instanceof Error) ||
    typeof (error as { toResponseObject?: unknown }).toResponseObject !== 'function'
  ) {
    return undefined;
  }
  // v1: the `errorCode` getter; v2 (`OAuthError`): the string `code`.
  const errorCode =
    (error as { errorCode?: unknown }).errorCode ??
    (hasV2Brand(error, 'OAuthError') ? (error as { code?: unknown }).code : undefined);
  if (typeof errorCode !== 'string') return undefined;
  const transient = OAUTH_TRANSIENT[errorCode];
  const source = 'mcp.oauth';
  if (transient) {
    return {
      ...transient,
      execution: 'not_sent',
      source,
      ...(transient.type === 'rate_limited' ? { healthNeutral: true } : {}),
    };
  }
  const type = OAUTH_FORBIDDEN.has(errorCode) ? 'forbidden' : 'unauthorized';
  return { class: 'non_retryable', type, execution: 'not_sent', source };
};

/**
 * `Error('Not connected')` (no transport: never connected, closed, or the stdio process exited): nothing was sent,
 * `connection_closed`, recovered by `reconnect`. (`McpError` -32000 is built-in: `Connection closed` is
 * `connection_closed`, any other -32000 a server's own `server_error`.)
 */
const connection: FunctionRule = (error) => {
  if (!(error instanceof Error)) return undefined;
  if (error.message === 'Not connected') {
    return {
      class: 'conditional',
      type: 'connection_closed',
      execution: 'not_sent',
      source: 'mcp.not_connected',
    };
  }
  return undefined;
};
