import {
  MissingRequiredClientCapabilityError,
  OAuthError,
  ProtocolError,
  ResourceNotFoundError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  UnauthorizedError,
  UnsupportedProtocolVersionError,
} from '@modelcontextprotocol/client';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { Classification } from '../classify/Classification.js';
import { classifyError } from '../classify/classifyError.js';
import { type McpRuleContext, mcpRules } from './mcpRules.js';
import { StreamBrokenError } from './StreamBrokenError.js';

const classify = (error: unknown, context: McpRuleContext = {}) =>
  classifyError(error, { rules: mcpRules(context) });

const httpError = (status: number, text: string) =>
  new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${text}`, {
    status,
    statusText: 'x',
    text,
  });

type Expected = Partial<Classification>;

describe('mcpRules: the errors of SDK v2 (@modelcontextprotocol/client 2.4.0), real instances', () => {
  const cases: Array<[string, unknown, Expected, McpRuleContext?]> = [
    [
      'ProtocolError -32602 invalid params',
      ProtocolError.fromError(-32602, 'Invalid arguments'),
      { class: 'non_retryable', type: 'invalid_params', execution: 'not_sent' },
    ],
    [
      'ProtocolError -32603 internal error',
      ProtocolError.fromError(-32603, 'boom'),
      { class: 'retryable', type: 'server_error' },
    ],
    [
      'ResourceNotFoundError: -32602 with data { uri } (2026-07-28 "not found")',
      new ResourceNotFoundError('file:///nope'),
      {
        class: 'non_retryable',
        type: 'not_found',
        execution: 'executed',
        source: 'mcp.protocol.resource_not_found',
      },
    ],
    [
      'legacy -32002 with data.uri',
      ProtocolError.fromError(-32002, 'Resource not found', { uri: 'file:///nope' }),
      { type: 'not_found', source: 'mcp.protocol.resource_not_found' },
    ],
    [
      '-32020 header mismatch',
      ProtocolError.fromError(-32020, 'Mcp-Method header does not match the body'),
      {
        class: 'non_retryable',
        type: 'invalid_request',
        execution: 'not_sent',
        source: 'mcp.protocol.header_mismatch',
      },
    ],
    [
      '-32021 missing required client capability',
      new MissingRequiredClientCapabilityError({ requiredCapabilities: { elicitation: {} } }),
      { class: 'non_retryable', type: 'invalid_request', source: 'mcp.protocol.missing_capability' },
    ],
    [
      '-32022 unsupported protocol version',
      new UnsupportedProtocolVersionError({ supported: ['2026-07-28'], requested: '2025-11-25' }),
      { class: 'non_retryable', type: 'invalid_request', source: 'mcp.protocol.unsupported_version' },
    ],
    [
      'v1 McpError -32022 too',
      new McpError(-32022, 'Unsupported protocol version'),
      { source: 'mcp.protocol.unsupported_version' },
    ],
    [
      'SdkError REQUEST_TIMEOUT with data.timeout: the SDK’s timeout',
      new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: 60_000 }),
      { class: 'retryable', type: 'timeout', execution: 'unknown', source: 'mcp.sdk.request_timeout' },
    ],
    [
      'SdkError REQUEST_TIMEOUT without data: a caller abort',
      new SdkError(SdkErrorCode.RequestTimeout, 'AbortError: This operation was aborted'),
      { class: 'non_retryable', type: 'cancelled', healthNeutral: true },
    ],
    [
      'SdkError CONNECTION_CLOSED',
      new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'),
      { class: 'conditional', type: 'connection_closed', execution: 'unknown' },
    ],
    [
      'SdkError NOT_CONNECTED',
      new SdkError(SdkErrorCode.NotConnected, 'Not connected'),
      { class: 'conditional', type: 'connection_closed', execution: 'not_sent' },
    ],
    [
      'SdkError METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION (ping on 2026-07-28)',
      new SdkError(SdkErrorCode.MethodNotSupportedByProtocolVersion, "Method 'ping' is not supported"),
      { class: 'non_retryable', type: 'method_not_found', execution: 'not_sent' },
    ],
    [
      'SdkError INVALID_RESULT',
      new SdkError(SdkErrorCode.InvalidResult, 'Invalid result for tools/call'),
      { class: 'non_retryable', execution: 'executed' },
    ],
    [
      'SdkHttpError 503 with an HTML body',
      httpError(503, '<html>503 Service Temporarily Unavailable</html>'),
      { class: 'retryable', type: 'unavailable', source: 'mcp.http.status' },
    ],
    [
      'SdkHttpError 429 with the Retry-After the observed fetch saw',
      httpError(429, '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Rate limit exceeded"},"id":null}'),
      { type: 'rate_limited', retryAfterMs: 2000 },
      { httpFailure: () => ({ seq: 1, status: 429, retryAfterMs: 2000, at: 0 }) },
    ],
    [
      'SdkHttpError 404 on a request that carried a session: expired',
      httpError(404, '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}'),
      { class: 'conditional', type: 'session_expired', execution: 'not_sent' },
      { hadSession: () => true },
    ],
    [
      'the same 404 on a sessionless (2026-07-28) connection: not an expired session',
      httpError(404, '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}'),
      { class: 'non_retryable', type: 'not_found' },
      { hadSession: () => false, sessionless: () => true },
    ],
    [
      'a 2026-07-28 404 whose body answers the request: by its JSON-RPC code',
      httpError(404, '{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}'),
      { type: 'method_not_found', source: 'mcp.http.jsonrpc_body.jsonrpc.code' },
    ],
    [
      'a 429 whose body answers the request with -32023: its data.retryAfterMs',
      httpError(
        429,
        '{"jsonrpc":"2.0","id":7,"error":{"code":-32023,"message":"Rate limited","data":{"retryAfterMs":750}}}',
      ),
      {
        class: 'conditional',
        type: 'rate_limited',
        execution: 'not_sent',
        retryAfterMs: 750,
        source: 'mcp.http.jsonrpc_body.mcp.protocol.rate_limited',
      },
    ],
    [
      'a 503 whose body answers the request with -32024, not processed',
      httpError(
        503,
        '{"jsonrpc":"2.0","id":8,"error":{"code":-32024,"message":"Unavailable","data":{"reason":"shutting_down","notProcessed":true}}}',
      ),
      {
        class: 'retryable',
        type: 'unavailable',
        execution: 'not_sent',
        source: 'mcp.http.jsonrpc_body.mcp.protocol.unavailable.shutting_down.not_processed',
      },
    ],
    [
      'SdkHttpError CLIENT_HTTP_AUTHENTICATION (401 after re-authentication)',
      new SdkHttpError(SdkErrorCode.ClientHttpAuthentication, 'Server returned 401 after re-authentication', {
        status: 401,
      }),
      { class: 'non_retryable', type: 'unauthorized' },
    ],
    [
      'v2 UnauthorizedError',
      new UnauthorizedError(),
      { class: 'non_retryable', type: 'unauthorized', source: 'mcp.unauthorized' },
    ],
    [
      'v2 OAuthError temporarily_unavailable (string code)',
      new OAuthError('temporarily_unavailable', 'try later'),
      { class: 'retryable', type: 'unavailable', source: 'mcp.oauth' },
    ],
    [
      'a response stream broken before the response',
      new StreamBrokenError(3, new TypeError('terminated')),
      { class: 'retryable', type: 'network', execution: 'unknown', source: 'mcp.http.stream_broken' },
    ],
  ];
  it.each(cases)('%s', (_, error, expected, context) => {
    expect(classify(error, context)).toMatchObject(expected);
  });
});
