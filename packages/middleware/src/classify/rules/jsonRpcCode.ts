import type { Finding, Verdict } from '../Finding.js';
import type { ErrorFacts } from '../inspectError.js';
import { classifyMcpCode, withRegistryData } from './mcpErrorRegistry.js';

/** The JSON-RPC reserved range. */
const RESERVED_MIN = -32768;
const RESERVED_MAX = -32000;
/** The implementation-defined "server error" range inside it (its -32099..-32020 is MCP's: `mcpErrorRegistry`). */
const SERVER_DEFINED_MIN = -32099;

/** The MCP SDK formats `McpError` messages as `MCP error <code>: <message>` (tool `isError` texts carry it too). */
const MESSAGE_CODE = /^\s*MCP error (-?\d{1,6}):/;

/** An unknown or disabled tool (the TS SDK answers `-32602 Tool X not found`). */
const TOOL_NOT_FOUND =
  /\btool\b[^\n]{0,200}?\b(?:not\s+found|disabled|does\s+not\s+exist)|\bunknown\s+tool\b/i;
/** An unknown resource or prompt (`-32602 Resource X not found`). */
const RESOURCE_NOT_FOUND = /\b(?:resource|prompt)\b[^\n]{0,200}?\bnot\s+found\b/i;
/** The client's own check of a result: the tool had already run (`Output validation error`). */
const AFTER_EXECUTION = /output\s+(?:schema|validation)|structured\s+content/i;
/** A `-32001` whose abort reason was a time limit (`AbortSignal.timeout`, the loop's attempt limit). */
const TIMEOUT_REASON = /TimeoutError/;

const isReservedCode = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= RESERVED_MIN && value <= RESERVED_MAX;

const nonRetryable = (type: Verdict['type'], execution: Verdict['execution']): Verdict => ({
  class: 'non_retryable',
  type,
  execution,
});
const SERVER_ERROR: Verdict = { class: 'retryable', type: 'server_error', execution: 'executed' };
const TIMEOUT: Verdict = { class: 'retryable', type: 'timeout', execution: 'unknown' };
const CANCELLED: Verdict = {
  class: 'non_retryable',
  type: 'cancelled',
  execution: 'unknown',
  healthNeutral: true,
};

const CONNECTION_CLOSED = /connection closed/i;

/**
 * What a JSON-RPC error code in -32768..-32000 means. Errors raised before the handler ran (parse, request,
 * method, params) are `not_sent`; errors from the handler are `executed`. `hasData` tells the MCP SDK's timeout
 * (`-32001` with `data.timeout`) from its caller abort (`-32001` without `data`).
 */
export function classifyJsonRpcCode(code: number, hasData: boolean, message: string): Verdict {
  switch (code) {
    case -32700:
      return nonRetryable('parse_error', 'not_sent');
    case -32600:
      return nonRetryable('invalid_request', AFTER_EXECUTION.test(message) ? 'executed' : 'not_sent');
    case -32601:
      return nonRetryable('method_not_found', 'not_sent');
    case -32602: {
      const execution = AFTER_EXECUTION.test(message) ? 'executed' : 'not_sent';
      if (TOOL_NOT_FOUND.test(message)) return nonRetryable('method_not_found', execution);
      if (RESOURCE_NOT_FOUND.test(message)) return nonRetryable('not_found', execution);
      return nonRetryable('invalid_params', execution);
    }
    // The draft registry says do-not-retry, but servers send it for any exception in a handler, transient ones
    // (a database timeout) included: kept retryable (what is unsure stays retryable), and `executed`, so it is
    // re-sent only when safe to repeat; `requiresUserAction` or a user rule makes it final.
    case -32603:
      return SERVER_ERROR;
    // The SDK's own "Connection closed"; a server that sends -32000 means a server-defined error.
    case -32000:
      return CONNECTION_CLOSED.test(message)
        ? { class: 'conditional', type: 'connection_closed', execution: 'unknown' }
        : SERVER_ERROR;
    case -32001:
      return hasData || TIMEOUT_REASON.test(message) ? TIMEOUT : CANCELLED;
    case -32002:
      return nonRetryable('not_found', 'executed');
    default: {
      const mcp = classifyMcpCode(code, undefined);
      if (mcp !== undefined) {
        const { source: _source, ...verdict } = mcp;
        return verdict;
      }
      return code >= SERVER_DEFINED_MIN ? SERVER_ERROR : nonRetryable('invalid_request', 'not_sent');
    }
  }
}

/**
 * A code with its `data`: an MCP-reserved code by the registry (`mcp.protocol.*`), any other by
 * {@link classifyJsonRpcCode} (`jsonrpc.code`); then the registry's `data` members (`requiresUserAction`,
 * `notProcessed`).
 */
function classifyCodeFact(fact: ErrorFacts & { readonly code: number }): Finding {
  const found = classifyMcpCode(fact.code, fact.registry) ?? {
    ...classifyJsonRpcCode(fact.code, fact.hasData, fact.message ?? ''),
    source: 'jsonrpc.code',
  };
  return withRegistryData(found, fact.registry);
}

/**
 * Step 4: a numeric JSON-RPC `code` on the error or in its cause chain (nearest first), with its `data` read as the
 * MCP error registry says (`retryAfterMs` is read with the other `Retry-After` hints). Also a Python MCP server's
 * `McpError` with code 0 (an unexpected exception in a handler): a retryable `server_error`.
 */
export function jsonRpcCode(facts: readonly ErrorFacts[]): Finding | undefined {
  for (const fact of facts) {
    if (fact.code === 0 && fact.name === 'McpError') return { ...SERVER_ERROR, source: 'jsonrpc.code' };
    if (isReservedCode(fact.code)) return classifyCodeFact({ ...fact, code: fact.code });
  }
  return undefined;
}

/**
 * A JSON-RPC code read from a message that starts with `MCP error <code>:` (an `isError` tool text, an error that
 * lost its `code`). Without `data` to look at, `-32001` is a caller abort only when the text says so.
 */
export function messageJsonRpcCode(facts: readonly ErrorFacts[]): Finding | undefined {
  for (const fact of facts) {
    const match = fact.message === undefined ? null : MESSAGE_CODE.exec(fact.message);
    if (match === null) continue;
    const code = Number(match[1]);
    if (!isReservedCode(code)) continue;
    const message = fact.message ?? '';
    const hasData = !/\babort/i.test(message);
    return { ...classifyJsonRpcCode(code, hasData, message), source: 'message.jsonrpc_code' };
  }
  return undefined;
}
