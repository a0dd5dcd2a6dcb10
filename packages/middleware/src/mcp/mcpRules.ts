import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Classification } from '../classify/Classification.js';
import type { FunctionRule } from '../classify/ClassificationRule.js';
import { classifyError } from '../classify/classifyError.js';
import type { ObservedFetch } from './observeFetch.js';
import { ToolResultError } from './ToolResultError.js';

/** How long a recorded HTTP failure is taken to belong to the error being classified. */
const FAILURE_MATCH_MS = 5_000;

/**
 * The MCP-aware classification rules, run after the user's rules and before the built-in ones. The JSON-RPC
 * codes of `McpError` (-32602, -32001 with or without `data`, ...) are already built-in (`jsonrpc.code`).
 */
export function mcpRules(fetch: ObservedFetch | undefined): FunctionRule[] {
  return [toolResult, streamableHttp(fetch), transport];
}

/** `isError` results, classified from their text; they never count for the breaker. */
const toolResult: FunctionRule = (error, context) => {
  if (!(error instanceof ToolResultError)) return undefined;
  const fromText = classifyError(new Error(error.message), { ...context, rules: [] });
  const message = fromText.message ?? error.message;
  if (fromText.source === 'default') {
    return { class: 'non_retryable', type: 'tool_error', execution: 'executed', source: 'mcp.tool_result', message };
  }
  return {
    ...fromText,
    execution: fromText.class === 'conditional' ? fromText.execution : 'executed',
    source: `mcp.tool_result.${fromText.source}`,
    healthNeutral: true,
  };
};

/** `StreamableHTTPError` (and the SSE transport's errors): status, session expiry and the recorded Retry-After. */
const streamableHttp =
  (fetch: ObservedFetch | undefined): FunctionRule =>
  (error, context) => {
    const status = httpStatusOf(error);
    if (status === undefined) return undefined;
    const message = (error as Error).message.slice(0, 512);
    if (status === -1) {
      return { class: 'non_retryable', type: 'invalid_request', execution: 'unknown', source: 'mcp.http.content_type', message };
    }
    if (status === 404 || (status === 400 && /session/i.test(message))) {
      return { class: 'conditional', type: 'session_expired', execution: 'not_sent', source: 'mcp.http.session', message };
    }
    const base = classifyError({ status, message }, { ...context, rules: [] });
    const failure = fetch?.lastFailure();
    const now = context.now ?? Date.now();
    const seen = failure && failure.status === status && now - failure.at < FAILURE_MATCH_MS ? failure : undefined;
    const retryAfterMs = base.retryAfterMs ?? seen?.retryAfterMs;
    const result: Classification = { ...base, source: `mcp.${base.source}`, message };
    return retryAfterMs === undefined ? result : { ...result, retryAfterMs };
  };

function httpStatusOf(error: unknown): number | undefined {
  if (error instanceof StreamableHTTPError) return error.code ?? 0;
  if (error instanceof SseError) return error.code;
  return undefined;
}

/** Errors of the client and its transports that carry no status. */
const transport: FunctionRule = (error) => {
  if (error instanceof UnauthorizedError) {
    return { class: 'non_retryable', type: 'unauthorized', execution: 'not_sent', source: 'mcp.unauthorized' };
  }
  if (error instanceof Error && error.message === 'Not connected') {
    return { class: 'conditional', type: 'connection_closed', execution: 'not_sent', source: 'mcp.not_connected' };
  }
  return undefined;
};
