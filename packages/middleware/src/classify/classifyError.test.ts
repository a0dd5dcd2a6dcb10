import { describe, expect, it } from 'vitest';
import { AttemptTimeoutError } from '../errors/AttemptTimeoutError.js';
import { ResilienceError } from '../errors/ResilienceError.js';
import type { Classification, ErrorType } from './Classification.js';
import { ERROR_TYPES } from './Classification.js';
import type { ClassifyContext } from './ClassifyContext.js';
import { classifyError } from './classifyError.js';
import {
  axiosError,
  fetchFailed,
  McpError,
  openAiError,
  StreamableHTTPError,
  systemError,
  toolError,
} from './test-support/errorShapes.js';

const R = 'retryable';
const NR = 'non_retryable';
const C = 'conditional';

type Expected = Omit<Classification, 'message'>;
interface Row {
  readonly name: string;
  readonly error: unknown;
  readonly expected: Expected;
  readonly context?: ClassifyContext;
}

const NOW = Date.parse('2026-03-01T12:00:00Z');

function row(
  name: string,
  error: unknown,
  [errorClass, type, execution, source]: [Expected['class'], ErrorType, Expected['execution'], string],
  extra: { retryAfterMs?: number; healthNeutral?: boolean; context?: ClassifyContext } = {},
): Row {
  const { context, ...optional } = extra;
  return {
    name,
    error,
    expected: { class: errorClass, type, execution, source, ...optional },
    ...(context ? { context } : {}),
  };
}

const neutral = { healthNeutral: true } as const;
const ECONNREFUSED = systemError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1');

const network: Row[] = [
  row('fetch failed, ECONNREFUSED', fetchFailed(ECONNREFUSED), [R, 'network', 'not_sent', 'node.code']),
  row(
    'fetch failed, ENOTFOUND',
    fetchFailed(systemError('ENOTFOUND', 'getaddrinfo ENOTFOUND mcp.example.invalid')),
    [R, 'network', 'not_sent', 'node.code'],
  ),
  row(
    'fetch failed, EAI_AGAIN',
    fetchFailed(systemError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN mcp.example.com')),
    [R, 'network', 'not_sent', 'node.code'],
  ),
  row('EHOSTUNREACH', systemError('EHOSTUNREACH', 'connect EHOSTUNREACH 10.0.0.9:443'), [
    R,
    'network',
    'not_sent',
    'node.code',
  ]),
  row('ENETUNREACH', systemError('ENETUNREACH', 'connect ENETUNREACH 2001:db8::1:443'), [
    R,
    'network',
    'not_sent',
    'node.code',
  ]),
  row(
    'undici connect timeout',
    fetchFailed(systemError('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error', 'ConnectTimeoutError')),
    [R, 'timeout', 'not_sent', 'node.code'],
  ),
  row(
    'undici socket closed before the response (ambiguous)',
    fetchFailed(systemError('UND_ERR_SOCKET', 'other side closed', 'SocketError')),
    [R, 'network', 'unknown', 'node.code'],
  ),
  row('ECONNRESET', systemError('ECONNRESET', 'read ECONNRESET'), [R, 'network', 'unknown', 'node.code']),
  row('EPIPE', systemError('EPIPE', 'write EPIPE'), [R, 'network', 'unknown', 'node.code']),
  row(
    'undici client closed',
    fetchFailed(systemError('UND_ERR_CLOSED', 'The client is destroyed', 'ClientClosedError')),
    [R, 'network', 'unknown', 'node.code'],
  ),
  row('premature close', systemError('ERR_STREAM_PREMATURE_CLOSE', 'Premature close'), [
    R,
    'network',
    'unknown',
    'node.code',
  ]),
  row('ECONNABORTED', systemError('ECONNABORTED', 'socket aborted'), [R, 'network', 'unknown', 'node.code']),
  row(
    'axios timeout (ECONNABORTED)',
    systemError('ECONNABORTED', 'timeout of 1000ms exceeded', 'AxiosError'),
    [R, 'timeout', 'unknown', 'node.code'],
  ),
  row('ETIMEDOUT', systemError('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.9:443'), [
    R,
    'timeout',
    'unknown',
    'node.code',
  ]),
  row(
    'undici headers timeout',
    fetchFailed(systemError('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error', 'HeadersTimeoutError')),
    [R, 'timeout', 'unknown', 'node.code'],
  ),
  row(
    'undici body timeout',
    fetchFailed(systemError('UND_ERR_BODY_TIMEOUT', 'Body Timeout Error', 'BodyTimeoutError')),
    [R, 'timeout', 'unknown', 'node.code'],
  ),
  row('ESOCKETTIMEDOUT', systemError('ESOCKETTIMEDOUT', 'ESOCKETTIMEDOUT'), [
    R,
    'timeout',
    'unknown',
    'node.code',
  ]),
  row('fetch failed, bad port (no code)', fetchFailed(new Error('bad port')), [
    R,
    'network',
    'unknown',
    'node.code',
  ]),
  row(
    'fetch failed, AggregateError of both address families',
    fetchFailed(
      new AggregateError([
        systemError('ECONNREFUSED', 'connect ECONNREFUSED ::1:3000'),
        systemError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:3000'),
      ]),
    ),
    [R, 'network', 'not_sent', 'node.code'],
  ),
  row('string errno only', { errno: 'ECONNREFUSED', message: 'refused' }, [
    R,
    'network',
    'not_sent',
    'node.code',
  ]),
  row('expired TLS certificate', fetchFailed(systemError('CERT_HAS_EXPIRED', 'certificate has expired')), [
    NR,
    'network',
    'not_sent',
    'node.code',
  ]),
  row('stdio command missing', systemError('ENOENT', 'spawn nonexistent-binary-xyz ENOENT'), [
    NR,
    'not_found',
    'not_sent',
    'node.code',
  ]),
  row('browser TypeError Failed to fetch', new TypeError('Failed to fetch'), [
    R,
    'network',
    'unknown',
    'node.code',
  ]),
  row(
    'ECONNRESET three levels down',
    new Error('tool call failed', {
      cause: new Error('request failed', { cause: systemError('ECONNRESET', 'read ECONNRESET') }),
    }),
    [R, 'network', 'unknown', 'node.code'],
  ),
];

const jsonRpc: Row[] = [
  row('-32700 parse error', new McpError(-32700, 'Parse error'), [
    NR,
    'parse_error',
    'not_sent',
    'jsonrpc.code',
  ]),
  row('-32600 invalid request', new McpError(-32600, 'Invalid Request: Server already initialized'), [
    NR,
    'invalid_request',
    'not_sent',
    'jsonrpc.code',
  ]),
  row(
    '-32600 client-side output check (the tool ran)',
    new McpError(-32600, 'Tool get-weather has an output schema but did not return structured content'),
    [NR, 'invalid_request', 'executed', 'jsonrpc.code'],
  ),
  row('-32601 method not found', new McpError(-32601, 'Method not found'), [
    NR,
    'method_not_found',
    'not_sent',
    'jsonrpc.code',
  ]),
  row('-32602 invalid params', new McpError(-32602, 'Invalid arguments for prompt p: a is required'), [
    NR,
    'invalid_params',
    'not_sent',
    'jsonrpc.code',
  ]),
  row(
    '-32602 unknown prompt with double prefix',
    new McpError(-32602, 'MCP error -32602: Prompt nope not found'),
    [NR, 'not_found', 'not_sent', 'jsonrpc.code'],
  ),
  row(
    '-32602 output schema mismatch (the tool ran)',
    new McpError(-32602, "Structured content does not match the tool's output schema: expected object"),
    [NR, 'invalid_params', 'executed', 'jsonrpc.code'],
  ),
  row(
    '-32602 go-sdk argument validation',
    new McpError(-32602, 'validating "arguments": missing properties: ["owner"]'),
    [NR, 'invalid_params', 'not_sent', 'jsonrpc.code'],
  ),
  row('-32603 internal error', new McpError(-32603, 'internal'), [
    R,
    'server_error',
    'executed',
    'jsonrpc.code',
  ]),
  row(
    '-32603 with data.retryAfter',
    new McpError(-32603, 'boom', { retryAfter: 5 }),
    [R, 'server_error', 'executed', 'jsonrpc.code'],
    { retryAfterMs: 5000 },
  ),
  row('-32000 connection closed', new McpError(-32000, 'Connection closed'), [
    C,
    'connection_closed',
    'unknown',
    'jsonrpc.code',
  ]),
  row('-32000 sent by a server as its own error', new McpError(-32000, 'Upstream database unavailable'), [
    R,
    'server_error',
    'executed',
    'jsonrpc.code',
  ]),
  row('-32001 request timeout (with data)', new McpError(-32001, 'Request timed out', { timeout: 60000 }), [
    R,
    'timeout',
    'unknown',
    'jsonrpc.code',
  ]),
  row(
    '-32001 maximum total timeout',
    new McpError(-32001, 'Maximum total timeout exceeded', { maxTotalTimeout: 5000, totalElapsed: 5012 }),
    [R, 'timeout', 'unknown', 'jsonrpc.code'],
  ),
  row(
    '-32001 caller abort (no data)',
    new McpError(-32001, 'AbortError: This operation was aborted'),
    [NR, 'cancelled', 'unknown', 'jsonrpc.code'],
    neutral,
  ),
  row(
    "-32001 aborted by the loop's attempt time limit (no data)",
    new McpError(-32001, 'AttemptTimeoutError: attempt timed out after 2000 ms'),
    [R, 'timeout', 'unknown', 'jsonrpc.code'],
  ),
  row(
    '-32001 aborted by a timeout signal (no data)',
    new McpError(-32001, 'TimeoutError: The operation was aborted due to timeout'),
    [R, 'timeout', 'unknown', 'jsonrpc.code'],
  ),
  row(
    '-32042 URL elicitation required',
    new McpError(-32042, 'This request requires more information.', { elicitations: [] }),
    [NR, 'user_action_required', 'not_sent', 'mcp.protocol.url_elicitation_required'],
  ),
  row('-32002 resource not found', new McpError(-32002, 'Resource not found', { uri: 'file:///x' }), [
    NR,
    'not_found',
    'executed',
    'jsonrpc.code',
  ]),
  row('-32050 reserved by MCP, not in the registry', new McpError(-32050, 'backend exploded'), [
    NR,
    'unknown',
    'unknown',
    'mcp.protocol.reserved_code',
  ]),
  row('-32099 reserved by MCP, not in the registry', new McpError(-32099, 'custom'), [
    NR,
    'unknown',
    'unknown',
    'mcp.protocol.reserved_code',
  ]),
  row('-32500 other reserved code', new McpError(-32500, 'reserved'), [
    NR,
    'invalid_request',
    'not_sent',
    'jsonrpc.code',
  ]),
  row('-32768 lowest reserved code', { code: -32768, message: 'x' }, [
    NR,
    'invalid_request',
    'not_sent',
    'jsonrpc.code',
  ]),
  row('-32022 unsupported protocol version (SDK v2)', new McpError(-32022, 'Unsupported protocol version'), [
    NR,
    'invalid_request',
    'not_sent',
    'mcp.protocol.unsupported_version',
  ]),
  row('-32019 server-defined, below the MCP range', new McpError(-32019, 'backend exploded'), [
    R,
    'server_error',
    'executed',
    'jsonrpc.code',
  ]),
  row('python server code 0', Object.assign(new McpError(0, 'division by zero')), [
    R,
    'server_error',
    'executed',
    'jsonrpc.code',
  ]),
  row('code in the cause chain', new Error('callTool failed', { cause: new McpError(-32602, 'bad') }), [
    NR,
    'invalid_params',
    'not_sent',
    'jsonrpc.code',
  ]),
  row('code beats message keywords', new McpError(-32603, 'rate limit exceeded upstream'), [
    R,
    'server_error',
    'executed',
    'jsonrpc.code',
  ]),
];

/** A v2 SDK `ProtocolError`: the same `code` and `data`, another name. */
const protocolError = (code: number, message: string, data?: unknown) =>
  Object.assign(new Error(message), { name: 'ProtocolError', code, data });

/**
 * The 2026-07-28 schema's codes and the draft error registry's (transports WG, 2026-09-03): each code, the common
 * `data` members (`retryAfterMs`, `notProcessed`, `requiresUserAction`) and -32024's `reason`.
 */
const registry: Row[] = [
  row(
    '-32020 header mismatch',
    new McpError(-32020, 'Header mismatch: Mcp-Method is tools/list, body says tools/call'),
    [NR, 'invalid_request', 'not_sent', 'mcp.protocol.header_mismatch'],
  ),
  row(
    '-32021 missing required client capability',
    new McpError(-32021, 'Missing required client capability', { requiredCapabilities: { elicitation: {} } }),
    [NR, 'invalid_request', 'not_sent', 'mcp.protocol.missing_capability'],
  ),
  row(
    '-32023 rate limited with data.retryAfterMs',
    new McpError(-32023, 'Rate limited', { retryAfterMs: 1500 }),
    [C, 'rate_limited', 'not_sent', 'mcp.protocol.rate_limited'],
    { retryAfterMs: 1500, ...neutral },
  ),
  row(
    '-32023 rate limited without a delay',
    new McpError(-32023, 'Rate limited'),
    [C, 'rate_limited', 'not_sent', 'mcp.protocol.rate_limited'],
    neutral,
  ),
  row(
    '-32023 with notProcessed (never executed anyway)',
    new McpError(-32023, 'Rate limited', { retryAfterMs: 10, notProcessed: true }),
    [C, 'rate_limited', 'not_sent', 'mcp.protocol.rate_limited'],
    { retryAfterMs: 10, ...neutral },
  ),
  row(
    '-32023 that requires user action (a plan to upgrade)',
    new McpError(-32023, 'Monthly quota used up', { retryAfterMs: 3_600_000, requiresUserAction: true }),
    [NR, 'user_action_required', 'not_sent', 'mcp.protocol.rate_limited.requires_user_action'],
  ),
  row(
    '-32023 as a v2 ProtocolError',
    protocolError(-32023, 'Rate limited', { retryAfterMs: 500 }),
    [C, 'rate_limited', 'not_sent', 'mcp.protocol.rate_limited'],
    { retryAfterMs: 500, ...neutral },
  ),
  row(
    '-32023 in the cause chain',
    new Error('callTool failed', { cause: new McpError(-32023, 'Rate limited', { retryAfterMs: 250 }) }),
    [C, 'rate_limited', 'not_sent', 'mcp.protocol.rate_limited'],
    { retryAfterMs: 250, ...neutral },
  ),
  row('-32024 unavailable without a reason', new McpError(-32024, 'Unavailable'), [
    R,
    'unavailable',
    'unknown',
    'mcp.protocol.unavailable',
  ]),
  row(
    '-32024 overloaded with data.retryAfterMs',
    new McpError(-32024, 'Unavailable', { reason: 'overloaded', retryAfterMs: 2000 }),
    [R, 'unavailable', 'unknown', 'mcp.protocol.unavailable.overloaded'],
    { retryAfterMs: 2000 },
  ),
  row(
    '-32024 maintenance, not processed',
    new McpError(-32024, 'Down for maintenance', { reason: 'maintenance', notProcessed: true }),
    [R, 'unavailable', 'not_sent', 'mcp.protocol.unavailable.maintenance.not_processed'],
  ),
  row('-32024 shutting down', new McpError(-32024, 'Shutting down', { reason: 'shutting_down' }), [
    R,
    'unavailable',
    'unknown',
    'mcp.protocol.unavailable.shutting_down',
  ]),
  row(
    '-32024 dependency unavailable',
    new McpError(-32024, 'Database unreachable', { reason: 'dependency_unavailable' }),
    [R, 'unavailable', 'unknown', 'mcp.protocol.unavailable.dependency_unavailable'],
  ),
  row('-32024 capacity', new McpError(-32024, 'No capacity', { reason: 'capacity' }), [
    R,
    'unavailable',
    'unknown',
    'mcp.protocol.unavailable.capacity',
  ]),
  row('-32024 other', new McpError(-32024, 'Unavailable', { reason: 'other' }), [
    R,
    'unavailable',
    'unknown',
    'mcp.protocol.unavailable.other',
  ]),
  row(
    '-32024 with a reason the registry does not list',
    new McpError(-32024, 'Unavailable', { reason: 'solar_flare' }),
    [R, 'unavailable', 'unknown', 'mcp.protocol.unavailable.other'],
  ),
  row('-32024 with a reason that is not a string', new McpError(-32024, 'Unavailable', { reason: 42 }), [
    R,
    'unavailable',
    'unknown',
    'mcp.protocol.unavailable',
  ]),
  row(
    '-32024 deadline exceeded (the server timed out: it may have run)',
    new McpError(-32024, 'Deadline exceeded', { reason: 'deadline_exceeded' }),
    [R, 'timeout', 'unknown', 'mcp.protocol.unavailable.deadline_exceeded'],
  ),
  row(
    '-32024 deadline exceeded with notProcessed (forbidden by the registry: ignored)',
    new McpError(-32024, 'Deadline exceeded', { reason: 'deadline_exceeded', notProcessed: true }),
    [R, 'timeout', 'unknown', 'mcp.protocol.unavailable.deadline_exceeded'],
  ),
  row(
    '-32024 that requires user action',
    new McpError(-32024, 'Account suspended', { reason: 'other', requiresUserAction: true }),
    [NR, 'user_action_required', 'unknown', 'mcp.protocol.unavailable.other.requires_user_action'],
  ),
  row('-32025 request too large', new McpError(-32025, 'Request too large', { maxBytes: 1_048_576 }), [
    C,
    'payload_too_large',
    'not_sent',
    'mcp.protocol.request_too_large',
  ]),
  row(
    '-32025 with data.retryAfterMs (a change is needed, not a wait)',
    new McpError(-32025, 'Request too large', { retryAfterMs: 100 }),
    [C, 'payload_too_large', 'not_sent', 'mcp.protocol.request_too_large'],
    { retryAfterMs: 100 },
  ),
  row('-32026 stale state', new McpError(-32026, 'Stale state: tool version changed'), [
    C,
    'conflict',
    'not_sent',
    'mcp.protocol.stale_state',
  ]),
  row('-32027 unsupported feature', new McpError(-32027, 'Unsupported feature: tasks'), [
    NR,
    'method_not_found',
    'not_sent',
    'mcp.protocol.unsupported_feature',
  ]),
  row('-32020, the top of the MCP range', new McpError(-32020, 'x'), [
    NR,
    'invalid_request',
    'not_sent',
    'mcp.protocol.header_mismatch',
  ]),
  row(
    'unknown reserved code with data.retryAfterMs',
    new McpError(-32060, 'Try later', { retryAfterMs: 3000 }),
    [R, 'unavailable', 'unknown', 'mcp.protocol.reserved_code.retry_after'],
    { retryAfterMs: 3000 },
  ),
  row(
    'unknown reserved code with data.retryAfterMs, not processed',
    new McpError(-32060, 'Try later', { retryAfterMs: 0, notProcessed: true }),
    [R, 'unavailable', 'not_sent', 'mcp.protocol.reserved_code.retry_after.not_processed'],
    { retryAfterMs: 0 },
  ),
  row(
    'unknown reserved code with a negative retryAfterMs (ignored)',
    new McpError(-32060, 'x', { retryAfterMs: -1 }),
    [NR, 'unknown', 'unknown', 'mcp.protocol.reserved_code'],
  ),
  row(
    'unknown reserved code with a string retryAfterMs (ignored)',
    new McpError(-32060, 'x', { retryAfterMs: '3000' }),
    [NR, 'unknown', 'unknown', 'mcp.protocol.reserved_code'],
  ),
  row(
    'unknown reserved code, not processed (still final)',
    new McpError(-32070, 'x', { notProcessed: true }),
    [NR, 'unknown', 'not_sent', 'mcp.protocol.reserved_code.not_processed'],
  ),
  row('-32100, below the server-error range', new McpError(-32100, 'x'), [
    NR,
    'invalid_request',
    'not_sent',
    'jsonrpc.code',
  ]),
  row(
    '-32603 not processed: safe to re-send',
    new McpError(-32603, 'Internal error', { notProcessed: true }),
    [R, 'server_error', 'not_sent', 'jsonrpc.code.not_processed'],
  ),
  row(
    '-32603 with notProcessed "true" (a string: ignored)',
    new McpError(-32603, 'Internal error', { notProcessed: 'true' }),
    [R, 'server_error', 'executed', 'jsonrpc.code'],
  ),
  row(
    '-32603 with data.retryAfterMs',
    new McpError(-32603, 'Internal error', { retryAfterMs: 1000 }),
    [R, 'server_error', 'executed', 'jsonrpc.code'],
    { retryAfterMs: 1000 },
  ),
  row(
    '-32603 that requires user action',
    new McpError(-32603, 'Re-link your account', { requiresUserAction: true }),
    [NR, 'user_action_required', 'executed', 'jsonrpc.code.requires_user_action'],
  ),
  row('-32000 from a server, not processed', new McpError(-32000, 'Queue full', { notProcessed: true }), [
    R,
    'server_error',
    'not_sent',
    'jsonrpc.code.not_processed',
  ]),
  row(
    '-32602 not processed (already not sent)',
    new McpError(-32602, 'Invalid params', { notProcessed: true }),
    [NR, 'invalid_params', 'not_sent', 'jsonrpc.code'],
  ),
  row(
    '-32602 that requires user action keeps its type',
    new McpError(-32602, 'Confirm the amount', { requiresUserAction: true }),
    [NR, 'invalid_params', 'not_sent', 'jsonrpc.code.requires_user_action'],
  ),
  row('text: -32025 request too large', new Error('MCP error -32025: Request too large'), [
    C,
    'payload_too_large',
    'not_sent',
    'message.jsonrpc_code',
  ]),
  row('text: unknown reserved code', new Error('MCP error -32050: custom'), [
    NR,
    'unknown',
    'unknown',
    'message.jsonrpc_code',
  ]),
  row(
    'text: -32023 with its delay in words',
    new Error('MCP error -32023: Rate limited. Retry after 2s'),
    [C, 'rate_limited', 'not_sent', 'message.jsonrpc_code'],
    { retryAfterMs: 2000, ...neutral },
  ),
];

const messageJsonRpc: Row[] = [
  row(
    'tool text: input validation',
    new Error(
      'MCP error -32602: Input validation error: Invalid arguments for tool get-sum: Invalid input: expected number, received string at a',
    ),
    [NR, 'invalid_params', 'not_sent', 'message.jsonrpc_code'],
  ),
  row('tool text: unknown tool', new Error('MCP error -32602: Tool nope not found'), [
    NR,
    'method_not_found',
    'not_sent',
    'message.jsonrpc_code',
  ]),
  row('tool text: disabled tool', new Error('MCP error -32602: Tool echo disabled'), [
    NR,
    'method_not_found',
    'not_sent',
    'message.jsonrpc_code',
  ]),
  row('tool text: internal error', new Error('MCP error -32603: internal'), [
    R,
    'server_error',
    'executed',
    'message.jsonrpc_code',
  ]),
  row('text: request timed out', 'MCP error -32001: Request timed out', [
    R,
    'timeout',
    'unknown',
    'message.jsonrpc_code',
  ]),
  row(
    'text: aborted',
    'MCP error -32001: AbortError: This operation was aborted',
    [NR, 'cancelled', 'unknown', 'message.jsonrpc_code'],
    neutral,
  ),
  row('tool text: output validation', new Error('MCP error -32602: Output validation error: bad'), [
    NR,
    'invalid_params',
    'executed',
    'message.jsonrpc_code',
  ]),
  row('error that lost its code', new Error('MCP error -32000: Connection closed'), [
    C,
    'connection_closed',
    'unknown',
    'message.jsonrpc_code',
  ]),
];

const http: Row[] = [
  row(
    'Streamable HTTP 400, everything server stale session',
    new StreamableHTTPError(
      400,
      'Error POSTing to endpoint: {"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}',
    ),
    [C, 'session_expired', 'not_sent', 'http.status'],
  ),
  row(
    'Streamable HTTP 404, SDK session not found',
    new StreamableHTTPError(
      404,
      'Error POSTing to endpoint: {"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}',
    ),
    [C, 'session_expired', 'not_sent', 'http.status'],
  ),
  row(
    'Streamable HTTP 400, bad request',
    new StreamableHTTPError(400, 'Error POSTing to endpoint: bad json'),
    [NR, 'invalid_request', 'not_sent', 'http.status'],
  ),
  row('Streamable HTTP 401', new StreamableHTTPError(401, 'Error POSTing to endpoint: unauthorized'), [
    NR,
    'unauthorized',
    'not_sent',
    'http.status',
  ]),
  row(
    'Streamable HTTP 403 (origin validation)',
    new StreamableHTTPError(403, 'Error POSTing to endpoint: Invalid Origin'),
    [NR, 'forbidden', 'not_sent', 'http.status'],
  ),
  row(
    'GitHub 403 secondary rate limit with Retry-After',
    Object.assign(
      new Error('You have exceeded a secondary rate limit. Please wait a few minutes before you try again.'),
      {
        name: 'HttpError',
        status: 403,
        response: { status: 403, headers: { 'retry-after': '60' } },
      },
    ),
    [C, 'rate_limited', 'not_sent', 'http.status'],
    { retryAfterMs: 60000, healthNeutral: true },
  ),
  row(
    'Google 403 daily limit',
    { status: 403, message: 'Daily Limit Exceeded. The quota will be reset at midnight Pacific Time.' },
    [NR, 'quota_exceeded', 'not_sent', 'http.status'],
  ),
  row('Octokit 404', Object.assign(new Error('Not Found'), { name: 'HttpError', status: 404 }), [
    NR,
    'not_found',
    'not_sent',
    'http.status',
  ]),
  row('405 method not allowed', axiosError(405), [NR, 'method_not_found', 'not_sent', 'http.status']),
  row('501 not implemented', axiosError(501), [NR, 'method_not_found', 'not_sent', 'http.status']),
  row('408 request timeout', axiosError(408), [R, 'timeout', 'unknown', 'http.status']),
  row('409 conflict', axiosError(409), [R, 'conflict', 'executed', 'http.status']),
  row('410 gone', axiosError(410), [NR, 'not_found', 'not_sent', 'http.status']),
  row('413 payload too large', new StreamableHTTPError(413, 'Error POSTing to endpoint: body too large'), [
    C,
    'payload_too_large',
    'not_sent',
    'http.status',
  ]),
  row(
    '415 unsupported media type',
    new StreamableHTTPError(415, 'Error POSTing to endpoint: Unsupported Media Type'),
    [NR, 'invalid_params', 'not_sent', 'http.status'],
  ),
  row('422 unprocessable', axiosError(422), [NR, 'invalid_params', 'not_sent', 'http.status']),
  row('425 too early', axiosError(425), [R, 'unavailable', 'not_sent', 'http.status']),
  row(
    'Streamable HTTP 429 (Retry-After lost)',
    new StreamableHTTPError(429, 'Error POSTing to endpoint: Too Many Requests'),
    [C, 'rate_limited', 'not_sent', 'http.status'],
    neutral,
  ),
  row(
    '429 from a custom fetch with Retry-After: 2',
    Object.assign(new Error('rate limited'), {
      name: 'RateLimitedError',
      status: 429,
      headers: { 'Retry-After': '2' },
    }),
    [C, 'rate_limited', 'not_sent', 'http.status'],
    { retryAfterMs: 2000, healthNeutral: true },
  ),
  row(
    'OpenAI 429 insufficient quota',
    openAiError(
      429,
      'You exceeded your current quota, please check your plan and billing details.',
      'insufficient_quota',
    ),
    [NR, 'quota_exceeded', 'not_sent', 'http.status'],
  ),
  row(
    'OpenAI 429 rate limit with retry-after-ms',
    openAiError(
      429,
      'Rate limit reached for gpt-4o on requests per min (RPM): Limit 500.',
      'rate_limit_exceeded',
      {
        'retry-after-ms': '1500',
        'retry-after': '2',
      },
    ),
    [C, 'rate_limited', 'not_sent', 'http.status'],
    { retryAfterMs: 1500, healthNeutral: true },
  ),
  row(
    'Google 429 per-minute quota is a rate limit',
    {
      status: 429,
      message: "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute' of service 'x'",
    },
    [C, 'rate_limited', 'not_sent', 'http.status'],
    neutral,
  ),
  row('500', new StreamableHTTPError(500, 'Error POSTing to endpoint: {"code":-32603}'), [
    R,
    'server_error',
    'unknown',
    'http.status',
  ]),
  row(
    '502 from a proxy with an HTML body',
    new StreamableHTTPError(
      502,
      'Error POSTing to endpoint: <html><body><h1>502 Bad Gateway</h1></body></html>',
    ),
    [R, 'unavailable', 'unknown', 'http.status'],
  ),
  row(
    'axios 503 with retry-after',
    axiosError(503, { 'retry-after': '2' }),
    [R, 'unavailable', 'unknown', 'http.status'],
    {
      retryAfterMs: 2000,
    },
  ),
  row('504 gateway timeout', axiosError(504), [R, 'timeout', 'unknown', 'http.status']),
  row(
    'Anthropic 529 overloaded',
    { status: 529, message: 'Overloaded', error: { type: 'overloaded_error' } },
    [R, 'server_error', 'unknown', 'http.status'],
  ),
  row('418 other 4xx', axiosError(418), [NR, 'invalid_request', 'not_sent', 'http.status']),
  row(
    'fetch Response thrown as is, Retry-After in Headers',
    new Response('busy', { status: 503, headers: { 'Retry-After': '7' } }),
    [R, 'unavailable', 'unknown', 'http.status'],
    { retryAfterMs: 7000 },
  ),
  row(
    'error carrying a fetch Response',
    Object.assign(new Error('upstream failed'), {
      response: new Response('busy', { status: 503, headers: { 'Retry-After': '3' } }),
    }),
    [R, 'unavailable', 'unknown', 'http.status'],
    { retryAfterMs: 3000 },
  ),
  row('statusCode 502', { statusCode: 502, message: 'bad gateway' }, [
    R,
    'unavailable',
    'unknown',
    'http.status',
  ]),
  row('response.statusCode 404', { response: { statusCode: 404 } }, [
    NR,
    'not_found',
    'not_sent',
    'http.status',
  ]),
  row(
    '503 with an HTTP-date Retry-After',
    { status: 503, headers: { 'retry-after': 'Sun, 01 Mar 2026 12:00:30 GMT' } },
    [R, 'unavailable', 'unknown', 'http.status'],
    { retryAfterMs: 30000, context: { now: NOW } },
  ),
  row('status in the cause chain', new Error('wrapper', { cause: { status: 401 } }), [
    NR,
    'unauthorized',
    'not_sent',
    'http.status',
  ]),
  row(
    'SSE connect 401 (SseError)',
    Object.assign(new Error('SSE error: Non-200 status code (401)'), { code: 401 }),
    [NR, 'unauthorized', 'not_sent', 'http.status'],
  ),
];

const messageHttp: Row[] = [
  row(
    'GitHub tool text: 404',
    new Error('failed to get issue: GET https://api.github.com/repos/o/r/issues/1: 404 Not Found []'),
    [NR, 'not_found', 'unknown', 'message.http_status'],
  ),
  row('fetch-server tool text: status code 503', new Error('Failed to fetch https://x - status code 503'), [
    R,
    'unavailable',
    'unknown',
    'message.http_status',
  ]),
  row(
    'GitHub tool text: unexpected status 502',
    new Error('unexpected status 502: <html>bad gateway</html>'),
    [R, 'unavailable', 'unknown', 'message.http_status'],
  ),
  row(
    'tool text: status code 429',
    new Error('Failed to fetch https://x - status code 429'),
    [C, 'rate_limited', 'unknown', 'message.http_status'],
    neutral,
  ),
  row(
    'fetch-server robots.txt 403',
    new Error(
      'When fetching robots.txt (https://x/robots.txt), received status 403 so assuming that autonomous fetching is not allowed',
    ),
    [NR, 'forbidden', 'unknown', 'message.http_status'],
  ),
  row(
    'SSE POST 404 session not found',
    new Error('Error POSTing to endpoint (HTTP 404): Session not found'),
    [C, 'session_expired', 'unknown', 'message.http_status'],
  ),
  row('first status of at least 400 wins', 'HTTP/1.1 200 OK then status: 500', [
    R,
    'server_error',
    'unknown',
    'message.http_status',
  ]),
];

const keywords: Row[] = [
  row(
    'GitHub primary rate limit, retry after 37s',
    new Error('failed to list issues: GitHub API rate limit exceeded. Retry after 37s.'),
    [C, 'rate_limited', 'unknown', 'message.keyword'],
    { retryAfterMs: 37000, healthNeutral: true },
  ),
  row(
    'GitHub secondary rate limit',
    'GitHub secondary rate limit exceeded. Retry after 60s.',
    [C, 'rate_limited', 'unknown', 'message.keyword'],
    { retryAfterMs: 60000, healthNeutral: true },
  ),
  row(
    'rate limit without a delay',
    'GitHub API rate limit exceeded. Wait before retrying.',
    [C, 'rate_limited', 'unknown', 'message.keyword'],
    neutral,
  ),
  row(
    'Too Many Requests',
    new Error('Too Many Requests'),
    [C, 'rate_limited', 'unknown', 'message.keyword'],
    neutral,
  ),
  row(
    'throttled',
    new Error('Request was throttled'),
    [C, 'rate_limited', 'unknown', 'message.keyword'],
    neutral,
  ),
  row(
    'rate limit, try again in 1.5s',
    'Rate limit reached. Please try again in 1.5s.',
    [C, 'rate_limited', 'unknown', 'message.keyword'],
    { retryAfterMs: 1500, healthNeutral: true },
  ),
  row(
    'rate limit, try again in 1m30s',
    'Rate limit reached for requests. Please try again in 1m30s.',
    [C, 'rate_limited', 'unknown', 'message.keyword'],
    { retryAfterMs: 90000, healthNeutral: true },
  ),
  row(
    'too many requests, retry in 500ms',
    'Too many requests, retry in 500ms',
    [C, 'rate_limited', 'unknown', 'message.keyword'],
    { retryAfterMs: 500, healthNeutral: true },
  ),
  row(
    'throttled, wait 3 minutes',
    'Throttled: please wait 3 minutes',
    [C, 'rate_limited', 'unknown', 'message.keyword'],
    { retryAfterMs: 180000, healthNeutral: true },
  ),
  row('insufficient_quota text', 'insufficient_quota', [NR, 'quota_exceeded', 'executed', 'message.keyword']),
  row('quota exceeded text', new Error('Quota exceeded for this month'), [
    NR,
    'quota_exceeded',
    'executed',
    'message.keyword',
  ]),
  row('Request timed out', new Error('Request timed out'), [R, 'timeout', 'unknown', 'message.keyword']),
  row('deadline exceeded', new Error('context deadline exceeded'), [
    R,
    'timeout',
    'unknown',
    'message.keyword',
  ]),
  row('invalid API key', new Error('Invalid API key provided: sk-****'), [
    NR,
    'unauthorized',
    'executed',
    'message.keyword',
  ]),
  row('SDK UnauthorizedError', Object.assign(new Error('Unauthorized'), { name: 'UnauthorizedError' }), [
    NR,
    'unauthorized',
    'executed',
    'message.keyword',
  ]),
  row('Bad credentials', 'Bad credentials', [NR, 'unauthorized', 'executed', 'message.keyword']),
  row('permission denied', new Error('permission denied for table users'), [
    NR,
    'forbidden',
    'executed',
    'message.keyword',
  ]),
  row('access denied', new Error('Access denied'), [NR, 'forbidden', 'executed', 'message.keyword']),
  row('session expired', new Error('Session expired, please re-initialize'), [
    C,
    'session_expired',
    'unknown',
    'message.keyword',
  ]),
  row('request entity too large', new Error('request entity too large'), [
    C,
    'payload_too_large',
    'unknown',
    'message.keyword',
  ]),
  row('file too large', new Error('file too large: 20MB exceeds the maximum size'), [
    C,
    'payload_too_large',
    'unknown',
    'message.keyword',
  ]),
  row('repository not found', new Error('Repository not found'), [
    NR,
    'not_found',
    'executed',
    'message.keyword',
  ]),
  row('no such file', new Error('No such file or directory'), [
    NR,
    'not_found',
    'executed',
    'message.keyword',
  ]),
  row('unknown tool', new Error('Unknown tool: get_wether'), [
    NR,
    'method_not_found',
    'executed',
    'message.keyword',
  ]),
  row('missing required parameter', new Error('missing required parameter: owner'), [
    NR,
    'invalid_params',
    'executed',
    'message.keyword',
  ]),
  row('parameter not of type', new Error('parameter per_page is not of type number'), [
    NR,
    'invalid_params',
    'executed',
    'message.keyword',
  ]),
  row('zod-like expected/received', new Error('Invalid input: expected number, received string'), [
    NR,
    'invalid_params',
    'executed',
    'message.keyword',
  ]),
  row('Invalid city', new Error('Invalid city: Atlantis'), [
    NR,
    'invalid_params',
    'executed',
    'message.keyword',
  ]),
  row('must be', new Error('email must be a valid address'), [
    NR,
    'invalid_params',
    'executed',
    'message.keyword',
  ]),
  row('malformed', new Error('Malformed JSON in request body'), [
    NR,
    'invalid_params',
    'executed',
    'message.keyword',
  ]),
  row('service temporarily unavailable', new Error('Service temporarily unavailable'), [
    R,
    'unavailable',
    'unknown',
    'message.keyword',
  ]),
  row('overloaded, try again later', new Error('The server is overloaded, please try again later'), [
    R,
    'unavailable',
    'unknown',
    'message.keyword',
  ]),
  row('upstream 503 (bare number)', new Error('upstream 503'), [
    R,
    'unavailable',
    'unknown',
    'message.keyword',
  ]),
  row('internal server error', new Error('Internal Server Error'), [
    R,
    'server_error',
    'unknown',
    'message.keyword',
  ]),
  row('socket hang up without a code', new Error('socket hang up'), [
    R,
    'network',
    'unknown',
    'message.keyword',
  ]),
  row('connection reset by peer', 'Connection reset by peer', [R, 'network', 'unknown', 'message.keyword']),
  row('SDK Not connected', new Error('Not connected'), [
    C,
    'connection_closed',
    'not_sent',
    'message.keyword',
  ]),
  row('SSE stream disconnected', new Error('SSE stream disconnected: TypeError: terminated'), [
    C,
    'connection_closed',
    'unknown',
    'message.keyword',
  ]),
  row('specific wins: invalid api key is not invalid params', 'invalid api key', [
    NR,
    'unauthorized',
    'executed',
    'message.keyword',
  ]),
  row('keyword in the cause', new Error('tool failed', { cause: new Error('Request timed out') }), [
    R,
    'timeout',
    'unknown',
    'message.keyword',
  ]),
];

const aborts: Row[] = [
  row(
    'DOMException AbortError',
    new DOMException('This operation was aborted', 'AbortError'),
    [NR, 'cancelled', 'unknown', 'error.name'],
    neutral,
  ),
  row(
    'Node AbortError',
    Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' }),
    [NR, 'cancelled', 'unknown', 'error.name'],
    neutral,
  ),
  row(
    'DOMException TimeoutError (AbortSignal.timeout)',
    new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
    [R, 'timeout', 'unknown', 'error.name'],
  ),
  row('aborted caller signal beats a 503', axiosError(503), [NR, 'cancelled', 'unknown', 'signal.aborted'], {
    healthNeutral: true,
    context: { signal: AbortSignal.abort() },
  }),
  row(
    'caller signal aborted by a timeout',
    new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
    [R, 'timeout', 'unknown', 'signal.timeout'],
    { context: { signal: AbortSignal.abort(new DOMException('timeout', 'TimeoutError')) } },
  ),
  row(
    'signal aborted with an AttemptTimeoutError reason',
    new DOMException('This operation was aborted', 'AbortError'),
    [R, 'timeout', 'unknown', 'signal.timeout'],
    { context: { signal: AbortSignal.abort(new AttemptTimeoutError(2000)) } },
  ),
  row(
    'abort wrapped in a cause',
    new Error('callTool failed', { cause: new DOMException('This operation was aborted', 'AbortError') }),
    [NR, 'cancelled', 'unknown', 'error.name'],
    neutral,
  ),
  row(
    'undici RequestAbortedError',
    Object.assign(new Error('Request aborted'), { name: 'AbortError', code: 'UND_ERR_ABORTED' }),
    [NR, 'cancelled', 'unknown', 'error.name'],
    neutral,
  ),
  row(
    'axios CanceledError',
    Object.assign(new Error('canceled'), { name: 'CanceledError', code: 'ERR_CANCELED' }),
    [NR, 'cancelled', 'unknown', 'error.name'],
    neutral,
  ),
  row(
    'an abort code without the name',
    Object.assign(new Error('The operation was aborted'), { code: 'ABORT_ERR' }),
    [NR, 'cancelled', 'unknown', 'node.code'],
    neutral,
  ),
];

const circuitOpen = new ResilienceError(
  {
    class: 'conditional',
    type: 'circuit_open',
    execution: 'not_sent',
    source: 'circuit_breaker',
    retryAfterMs: 500,
  },
  0,
  'circuit_open',
  undefined,
);
const budgetExhausted = new ResilienceError(
  { class: 'non_retryable', type: 'budget_exhausted', execution: 'not_sent', source: 'retry_budget' },
  2,
  'budget_exhausted',
  axiosError(503),
);

const ownErrors: Row[] = [
  row('AttemptTimeoutError', new AttemptTimeoutError(2000), [R, 'timeout', 'unknown', 'attempt_timeout']),
  row(
    'ResilienceError circuit_open passes through',
    circuitOpen,
    [C, 'circuit_open', 'not_sent', 'resilience_error'],
    {
      retryAfterMs: 500,
    },
  ),
  row('ResilienceError budget_exhausted passes through', budgetExhausted, [
    NR,
    'budget_exhausted',
    'not_sent',
    'resilience_error',
  ]),
  row(
    'ResilienceError wrapped by an outer layer',
    new Error('agent step failed', { cause: circuitOpen }),
    [C, 'circuit_open', 'not_sent', 'resilience_error'],
    { retryAfterMs: 500 },
  ),
];

const toolResults: Row[] = [
  row(
    'isError result with an unrecognised text',
    toolError('The weather station did not answer the question'),
    [NR, 'tool_error', 'executed', 'tool_result'],
  ),
  row(
    'isError result saying unavailable: retryable but neutral',
    toolError('Service temporarily unavailable'),
    [R, 'unavailable', 'unknown', 'message.keyword'],
    neutral,
  ),
  row(
    'isError result with an MCP validation error',
    toolError('MCP error -32602: Input validation error: bad'),
    [NR, 'invalid_params', 'not_sent', 'message.jsonrpc_code'],
  ),
];

const defaults: Row[] = [
  row('null', null, [R, 'unknown', 'unknown', 'default']),
  row('undefined', undefined, [R, 'unknown', 'unknown', 'default']),
  row('a number', 42, [R, 'unknown', 'unknown', 'default']),
  row('a plain string', 'something odd happened', [R, 'unknown', 'unknown', 'default']),
  row('Error boom', new Error('boom'), [R, 'unknown', 'unknown', 'default']),
  row('empty object', {}, [R, 'unknown', 'unknown', 'default']),
  row('SyntaxError from a garbage body', new SyntaxError('Unexpected token < in JSON at position 0'), [
    R,
    'unknown',
    'unknown',
    'default',
  ]),
  row(
    'Streamable HTTP unexpected content type (-1)',
    new StreamableHTTPError(-1, 'Unexpected content type: text/plain'),
    [R, 'unknown', 'unknown', 'default'],
  ),
  row(
    'default keeps a Retry-After',
    Object.assign(new Error('weird'), { headers: { 'retry-after': '3' } }),
    [R, 'unknown', 'unknown', 'default'],
    { retryAfterMs: 3000 },
  ),
];

const table: Row[] = [
  ...network,
  ...jsonRpc,
  ...registry,
  ...messageJsonRpc,
  ...http,
  ...messageHttp,
  ...keywords,
  ...aborts,
  ...ownErrors,
  ...toolResults,
  ...defaults,
];

function decisionOf(classification: Classification): Expected {
  const { message: _message, ...decision } = classification;
  return decision;
}

describe('classifyError table', () => {
  it.each(table)('$name', ({ error, expected, context }) => {
    expect(decisionOf(classifyError(error, context))).toEqual(expected);
  });

  it('has at least 100 cases and covers every error type', () => {
    expect(table.length).toBeGreaterThanOrEqual(100);
    const covered = new Set(table.map((r) => r.expected.type));
    expect(ERROR_TYPES.filter((type) => !covered.has(type))).toEqual([]);
  });
});

describe('classifyError message', () => {
  it('is the error message, capped at 512 characters', () => {
    const long = `Invalid input: ${'x'.repeat(2000)}`;
    const classification = classifyError(new Error(long));
    expect(classification.message).toBe(long.slice(0, 512));
  });

  it('does not cut a surrogate pair in half', () => {
    const message = `${'a'.repeat(511)}😀 tail`;
    expect(classifyError(message).message).toBe('a'.repeat(511));
  });

  it('falls back to the first message in the chain', () => {
    expect(classifyError({ cause: new Error('read ECONNRESET') }).message).toBe('read ECONNRESET');
  });

  it('is the text of an isError tool result', () => {
    expect(classifyError(toolError('Invalid city: Atlantis')).message).toBe('Invalid city: Atlantis');
  });

  it('is the carried message for a ResilienceError', () => {
    const inner = classifyError(new Error('Invalid city: Atlantis'));
    const wrapped = new ResilienceError(inner, 1, 'non_retryable', new Error('Invalid city: Atlantis'));
    expect(classifyError(wrapped)).toEqual({ ...inner, source: 'resilience_error' });
  });

  it('is absent when the error has none', () => {
    expect(classifyError({ status: 503 })).not.toHaveProperty('message');
  });
});

describe('classifyError invariants', () => {
  it('leaves healthNeutral unset on non-retryable built-in findings', () => {
    for (const { error, context } of table) {
      const classification = classifyError(error, context);
      if (classification.class === 'non_retryable' && classification.type !== 'cancelled') {
        expect(classification.healthNeutral).toBeUndefined();
      }
    }
  });

  it('marks every conditional rate limit as health-neutral', () => {
    for (const { error, context } of table) {
      const classification = classifyError(error, context);
      if (classification.class === 'conditional' && classification.type === 'rate_limited') {
        expect(classification.healthNeutral).toBe(true);
      }
    }
  });

  it('never attaches a Retry-After to a non-retryable finding', () => {
    const quota = openAiError(429, 'You exceeded your current quota', 'insufficient_quota', {
      'retry-after': '20',
    });
    expect(classifyError(quota).retryAfterMs).toBeUndefined();
  });

  it('uses the injected now for HTTP dates and never goes negative', () => {
    const error = { status: 429, headers: { 'retry-after': 'Sun, 01 Mar 2026 11:00:00 GMT' } };
    expect(classifyError(error, { now: NOW }).retryAfterMs).toBe(0);
  });

  it('returns fresh plain data', () => {
    const first = classifyError(circuitOpen);
    const second = classifyError(circuitOpen);
    expect(first).toEqual(second);
    expect(first).not.toBe(second);
    expect(JSON.parse(JSON.stringify(first))).toEqual(first);
  });
});
