import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  InsufficientScopeError,
  InvalidGrantError,
  ServerError,
  TemporarilyUnavailableError,
  TooManyRequestsError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { ErrorCode, McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { Classification } from '../classify/Classification.js';
import { classifyError } from '../classify/classifyError.js';
import { type McpRuleContext, mcpRules } from './mcpRules.js';
import { ReconnectError } from './ReconnectError.js';
import { ToolResultError } from './ToolResultError.js';

const classify = (error: unknown, context: McpRuleContext = {}) =>
  classifyError(error, { rules: mcpRules(context) });

const toolError = (text: string) => new ToolResultError({ content: [{ type: 'text', text }], isError: true });
const fetchFailed = (code: string) =>
  new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });
const sseEvent = (code: number | undefined, message: string) =>
  ({ type: 'error', code, message }) as unknown as ConstructorParameters<typeof SseError>[2];

type Expected = Partial<Classification>;

describe('mcpRules: McpError codes', () => {
  const cases: Array<[string, unknown, Expected]> = [
    [
      '-32700 parse error',
      new McpError(ErrorCode.ParseError, 'Parse error'),
      { class: 'non_retryable', type: 'parse_error', execution: 'not_sent' },
    ],
    [
      '-32600 invalid request',
      new McpError(ErrorCode.InvalidRequest, 'Invalid request'),
      { class: 'non_retryable', type: 'invalid_request', execution: 'not_sent' },
    ],
    [
      '-32601 method not found',
      new McpError(ErrorCode.MethodNotFound, 'Method not found'),
      { class: 'non_retryable', type: 'method_not_found', execution: 'not_sent' },
    ],
    [
      '-32602 invalid params',
      new McpError(ErrorCode.InvalidParams, 'validating "arguments": missing properties: ["owner"]'),
      { class: 'non_retryable', type: 'invalid_params', execution: 'not_sent' },
    ],
    [
      '-32602 unknown prompt (double prefix)',
      new McpError(ErrorCode.InvalidParams, 'MCP error -32602: Prompt nope not found'),
      { class: 'non_retryable', type: 'not_found' },
    ],
    [
      '-32603 internal error: retryable when idempotent (it ran)',
      new McpError(ErrorCode.InternalError, 'boom'),
      { class: 'retryable', type: 'server_error', execution: 'executed' },
    ],
    [
      '-32010 server-defined',
      new McpError(-32010, 'backend exploded'),
      { class: 'retryable', type: 'server_error', execution: 'executed' },
    ],
    [
      '-32050 reserved by MCP, unknown: final',
      new McpError(-32050, 'backend exploded'),
      { class: 'non_retryable', type: 'unknown', source: 'mcp.protocol.reserved_code' },
    ],
    [
      '-32023 rate limited: waits data.retryAfterMs',
      new McpError(-32023, 'Rate limited', { retryAfterMs: 1200 }),
      {
        class: 'conditional',
        type: 'rate_limited',
        execution: 'not_sent',
        retryAfterMs: 1200,
        source: 'mcp.protocol.rate_limited',
      },
    ],
    [
      '-32024 unavailable, not processed',
      new McpError(-32024, 'Unavailable', { reason: 'overloaded', notProcessed: true }),
      {
        class: 'retryable',
        type: 'unavailable',
        execution: 'not_sent',
        source: 'mcp.protocol.unavailable.overloaded.not_processed',
      },
    ],
    [
      '-32025 request too large',
      new McpError(-32025, 'Request too large'),
      { class: 'conditional', type: 'payload_too_large', source: 'mcp.protocol.request_too_large' },
    ],
    [
      '-32603 with data.retryAfter',
      new McpError(ErrorCode.InternalError, 'busy', { retryAfter: 5 }),
      { class: 'retryable', type: 'server_error', retryAfterMs: 5000 },
    ],
    [
      '-32000 Connection closed (the SDK’s own)',
      new McpError(ErrorCode.ConnectionClosed, 'Connection closed'),
      {
        class: 'conditional',
        type: 'connection_closed',
        execution: 'unknown',
        source: 'jsonrpc.code',
      },
    ],
    [
      '-32000 sent by a server handler',
      new McpError(-32000, 'Upstream database unavailable'),
      { class: 'retryable', type: 'server_error', execution: 'executed', source: 'jsonrpc.code' },
    ],
    [
      '-32001 with data: a timeout',
      new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: 100 }),
      { class: 'retryable', type: 'timeout', execution: 'unknown' },
    ],
    [
      '-32001 with data: maximum total timeout',
      new McpError(ErrorCode.RequestTimeout, 'Maximum total timeout exceeded', {
        maxTotalTimeout: 100,
        totalElapsed: 120,
      }),
      { class: 'retryable', type: 'timeout' },
    ],
    [
      '-32001 without data: a caller abort',
      new McpError(ErrorCode.RequestTimeout, 'AbortError: This operation was aborted'),
      { class: 'non_retryable', type: 'cancelled', healthNeutral: true },
    ],
    [
      '-32042 URL elicitation required',
      new UrlElicitationRequiredError([
        { mode: 'url', message: 'Sign in', url: 'https://example.com/login', elicitationId: 'e1' },
      ]),
      { class: 'non_retryable', type: 'user_action_required', execution: 'not_sent' },
    ],
  ];
  it.each(cases)('%s', (_name, error, expected) => {
    expect(classify(error)).toMatchObject(expected);
  });
});

describe('mcpRules: StreamableHTTPError', () => {
  const body = (code: number, message: string) =>
    `Error POSTing to endpoint: ${JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null })}`;
  const html = (status: number, reason: string) =>
    `Error POSTing to endpoint: <html><head><title>${status} ${reason}</title></head><body><center><h1>${status} ${reason}</h1></center><hr><center>nginx</center></body></html>`;

  it('404 with the SDK server’s body: the session expired', () => {
    const error = new StreamableHTTPError(404, body(-32001, 'Session not found'));
    expect(classify(error)).toMatchObject({
      class: 'conditional',
      type: 'session_expired',
      execution: 'not_sent',
      source: 'mcp.http.session',
    });
  });

  it('404 on a request that carried a session id: the session expired, whatever the body', () => {
    const error = new StreamableHTTPError(404, 'Error POSTing to endpoint: Not Found');
    expect(classify(error, { hadSession: () => true })).toMatchObject({ type: 'session_expired' });
  });

  it('404 without a session: a wrong URL, not retried', () => {
    const error = new StreamableHTTPError(404, 'Error POSTing to endpoint: Not Found');
    expect(classify(error, { hadSession: () => false })).toMatchObject({
      class: 'non_retryable',
      type: 'not_found',
      source: 'mcp.http.status',
    });
  });

  it('400 "No valid session ID provided" (server-everything): the session expired', () => {
    const error = new StreamableHTTPError(400, body(-32000, 'Bad Request: No valid session ID provided'));
    expect(classify(error)).toMatchObject({
      class: 'conditional',
      type: 'session_expired',
      execution: 'not_sent',
    });
  });

  it('400 about something else: a non-retryable bad request', () => {
    const error = new StreamableHTTPError(400, body(-32700, 'Parse error: Invalid JSON'));
    expect(classify(error)).toMatchObject({ class: 'non_retryable', type: 'invalid_request' });
  });

  it.each<[number, Expected]>([
    [401, { class: 'non_retryable', type: 'unauthorized', execution: 'not_sent' }],
    [403, { class: 'non_retryable', type: 'forbidden', execution: 'not_sent' }],
    [413, { class: 'conditional', type: 'payload_too_large' }],
    [500, { class: 'retryable', type: 'server_error', execution: 'unknown' }],
    [502, { class: 'retryable', type: 'unavailable', execution: 'unknown' }],
    [503, { class: 'retryable', type: 'unavailable', execution: 'unknown' }],
    [504, { class: 'retryable', type: 'timeout', execution: 'unknown' }],
  ])('%i', (status, expected) => {
    expect(classify(new StreamableHTTPError(status, html(status, 'Whatever')))).toMatchObject({
      ...expected,
      source: 'mcp.http.status',
    });
  });

  it('429 without observeFetch: the delay from the body', () => {
    const error = new StreamableHTTPError(429, body(-32000, 'Rate limit exceeded. Retry after 2s.'));
    expect(classify(error)).toMatchObject({
      class: 'conditional',
      type: 'rate_limited',
      execution: 'not_sent',
      retryAfterMs: 2000,
      healthNeutral: true,
    });
  });

  it('429 with the Retry-After header that observeFetch saw: the header wins', () => {
    const error = new StreamableHTTPError(429, body(-32000, 'Rate limit exceeded. Retry after 2s.'));
    const httpFailure = (e: unknown, status: number) =>
      e === error && status === 429 ? { seq: 1, status, at: 0, retryAfterMs: 1000 } : undefined;
    expect(classify(error, { httpFailure })).toMatchObject({ type: 'rate_limited', retryAfterMs: 1000 });
  });

  it('503 with a Retry-After header: retryable, with the delay as a floor', () => {
    const error = new StreamableHTTPError(503, html(503, 'Service Temporarily Unavailable'));
    const httpFailure = () => ({ seq: 1, status: 503, at: 0, retryAfterMs: 5000 });
    expect(classify(error, { httpFailure })).toMatchObject({
      class: 'retryable',
      type: 'unavailable',
      retryAfterMs: 5000,
    });
  });

  it('a 429 that says the quota is used up is not retried', () => {
    const error = new StreamableHTTPError(429, body(-32000, 'You exceeded your current quota'));
    expect(classify(error)).toMatchObject({ class: 'non_retryable', type: 'quota_exceeded' });
  });

  it('-1 (unexpected content type): non-retryable', () => {
    const error = new StreamableHTTPError(-1, 'Unexpected content type: text/plain');
    expect(classify(error)).toMatchObject({
      class: 'non_retryable',
      type: 'invalid_request',
      source: 'mcp.http.content_type',
    });
  });

  it('is recognised without instanceof (another copy of the SDK)', () => {
    const foreign = Object.assign(new Error('Streamable HTTP error: Error POSTing to endpoint: busy'), {
      code: 503,
    });
    expect(classify(foreign)).toMatchObject({ type: 'unavailable', source: 'mcp.http.status' });
  });
});

describe('mcpRules: the SSE transport', () => {
  it('SseError with a status', () => {
    const error = new SseError(401, 'Non-200 status code (401)', sseEvent(401, 'Non-200 status code (401)'));
    expect(classify(error)).toMatchObject({
      class: 'non_retryable',
      type: 'unauthorized',
      source: 'mcp.http.status',
    });
  });

  it('SseError without a status (network)', () => {
    const error = new SseError(
      undefined,
      'TypeError: fetch failed',
      sseEvent(undefined, 'TypeError: fetch failed'),
    );
    expect(classify(error)).toMatchObject({ class: 'retryable', type: 'network' });
  });

  it('SseError when the stream is cut', () => {
    const message = 'TypeError: terminated: other side closed';
    expect(classify(new SseError(undefined, message, sseEvent(undefined, message)))).toMatchObject({
      type: 'connection_closed',
    });
  });

  it('the POST error, a plain Error with the status in parentheses', () => {
    expect(classify(new Error('Error POSTing to endpoint (HTTP 429): Too Many Requests'))).toMatchObject({
      class: 'conditional',
      type: 'rate_limited',
      source: 'mcp.http.status',
    });
    expect(classify(new Error('Error POSTing to endpoint (HTTP 503): down'))).toMatchObject({
      class: 'retryable',
      type: 'unavailable',
    });
  });
});

describe('mcpRules: authorization', () => {
  it('UnauthorizedError: a human must act, not retried', () => {
    expect(classify(new UnauthorizedError())).toMatchObject({
      class: 'non_retryable',
      type: 'unauthorized',
      execution: 'not_sent',
      source: 'mcp.unauthorized',
    });
  });

  it.each<[string, Error, Expected]>([
    [
      'TooManyRequestsError',
      new TooManyRequestsError('slow down'),
      { class: 'conditional', type: 'rate_limited' },
    ],
    [
      'TemporarilyUnavailableError',
      new TemporarilyUnavailableError('later'),
      { class: 'retryable', type: 'unavailable' },
    ],
    ['ServerError', new ServerError('HTTP 500: oops'), { class: 'retryable', type: 'server_error' }],
    ['InvalidGrantError', new InvalidGrantError('expired'), { class: 'non_retryable', type: 'unauthorized' }],
    [
      'InsufficientScopeError',
      new InsufficientScopeError('scope'),
      { class: 'non_retryable', type: 'forbidden' },
    ],
  ])('OAuth %s', (_name, error, expected) => {
    expect(classify(error)).toMatchObject({ ...expected, execution: 'not_sent', source: 'mcp.oauth' });
  });
});

describe('mcpRules: network and connection', () => {
  it('fetch failed, connection refused: not sent', () => {
    expect(classify(fetchFailed('ECONNREFUSED'))).toMatchObject({
      class: 'retryable',
      type: 'network',
      execution: 'not_sent',
    });
  });

  it('fetch failed, socket closed: it may have run', () => {
    expect(classify(fetchFailed('UND_ERR_SOCKET'))).toMatchObject({
      class: 'retryable',
      type: 'network',
      execution: 'unknown',
    });
  });

  it('fetch failed, DNS', () => {
    expect(classify(fetchFailed('ENOTFOUND'))).toMatchObject({ type: 'network', execution: 'not_sent' });
  });

  it("'Not connected': nothing was sent, recovered by reconnect", () => {
    expect(classify(new Error('Not connected'))).toMatchObject({
      class: 'conditional',
      type: 'connection_closed',
      execution: 'not_sent',
      source: 'mcp.not_connected',
    });
  });

  it('a failed reconnection: classified by its cause, never sent', () => {
    expect(classify(new ReconnectError(fetchFailed('ECONNREFUSED')))).toMatchObject({
      class: 'retryable',
      type: 'network',
      execution: 'not_sent',
      source: 'mcp.reconnect.node.code',
    });
    expect(
      classify(
        new ReconnectError(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: 1 })),
      ),
    ).toMatchObject({ type: 'timeout', execution: 'not_sent' });
    expect(classify(new ReconnectError(new StreamableHTTPError(401, 'Unauthorized')))).toMatchObject({
      class: 'non_retryable',
      type: 'unauthorized',
    });
  });
});

describe('mcpRules: isError tool results, from their text', () => {
  const cases: Array<[string, Expected]> = [
    [
      'MCP error -32602: Input validation error: Invalid arguments for tool get-sum: expected number, received string',
      { class: 'non_retryable', type: 'invalid_params', execution: 'not_sent' },
    ],
    ['MCP error -32602: Tool nope not found', { class: 'non_retryable', type: 'method_not_found' }],
    ['missing required parameter: owner', { class: 'non_retryable', type: 'invalid_params' }],
    ['parameter limit is not of type number', { class: 'non_retryable', type: 'invalid_params' }],
    ['Invalid city: "Atlantis"', { class: 'non_retryable', type: 'invalid_params' }],
    [
      'failed to get issue: GitHub API rate limit exceeded. Retry after 37s.',
      { class: 'conditional', type: 'rate_limited', retryAfterMs: 37_000 },
    ],
    [
      'Failed to fetch https://example.com - status code 503',
      { class: 'retryable', type: 'unavailable', execution: 'unknown' },
    ],
    [
      'failed to list: unexpected status 502: <html>bad gateway</html>',
      { class: 'retryable', type: 'unavailable' },
    ],
    ['upstream request timed out', { class: 'retryable', type: 'timeout' }],
    ['Service temporarily unavailable', { class: 'retryable', type: 'unavailable' }],
    ['MCP error -32603: internal', { class: 'retryable', type: 'server_error' }],
    // The tool's own upstream connection, not ours: retryable, never a reconnection of this session.
    ['MCP error -32000: Connection closed', { class: 'retryable', type: 'network' }],
    ['upstream session expired', { class: 'retryable', type: 'network' }],
    [
      'The report was generated but the chart is ugly',
      { class: 'non_retryable', type: 'tool_error', execution: 'executed', source: 'mcp.tool_result' },
    ],
  ];
  it.each(cases)('%s', (text, expected) => {
    const c = classify(toolError(text));
    expect(c).toMatchObject({ ...expected, healthNeutral: true });
    expect(c.source).toMatch(/^mcp\.tool_result/);
    expect(c.message).toBe(text);
  });

  it('a result without text', () => {
    const c = classify(new ToolResultError({ content: [], isError: true }));
    expect(c).toMatchObject({ class: 'non_retryable', type: 'tool_error', healthNeutral: true });
  });
});

describe('mcpRules: user rules come first', () => {
  it('a user rule overrides the MCP rules', () => {
    const error = new StreamableHTTPError(503, 'Error POSTing to endpoint: maintenance');
    const c = classifyError(error, {
      rules: [
        {
          name: 'maintenance',
          message: /maintenance/,
          classify: { class: 'non_retryable', type: 'unavailable' },
        },
        ...mcpRules(),
      ],
    });
    expect(c).toMatchObject({ class: 'non_retryable', source: 'rule:maintenance' });
  });
});
