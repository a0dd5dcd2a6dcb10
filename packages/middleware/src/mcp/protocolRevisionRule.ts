import type { Classification } from '../classify/Classification.js';
import type { FunctionRule } from '../classify/ClassificationRule.js';
import { capMessage } from '../classify/readClassification.js';
import { hasV2Brand } from './v2/sdkV2Errors.js';

/**
 * The MCP revision 2026-07-28's "not found", with its own `source`. (Its codes -32020..-32099 and the draft error
 * registry's are the core classifier's: `classify/rules/mcpErrorRegistry.ts`, sources `mcp.protocol.*`.)
 * - resource not found: -32602 whose `data` is exactly `{ uri }` (2026-07-28, and the v1 SDK on every revision) or
 *   the legacy -32002: `not_found`, executed (the server looked). Tool and prompt "not found" texts stay with the
 *   built-in rules (`method_not_found`, `not_found`).
 */
export const protocolRevisionRule: FunctionRule = (error) => {
  const code = jsonRpcCodeOf(error);
  if (code === undefined) return undefined;
  const message = capMessage((error as Error).message);
  const data = (error as { data?: unknown }).data;
  const verdict = (
    type: Classification['type'],
    execution: Classification['execution'],
    source: string,
  ): Classification => ({ class: 'non_retryable', type, execution, source, message });
  switch (code) {
    case -32602:
    case -32002: {
      const uri = typeof data === 'object' && data !== null ? (data as { uri?: unknown }).uri : undefined;
      const onlyUri =
        typeof uri === 'string' && (code === -32002 || Object.keys(data as object).length === 1);
      return onlyUri ? verdict('not_found', 'executed', 'mcp.protocol.resource_not_found') : undefined;
    }
    default:
      return undefined;
  }
};

/** The JSON-RPC code of a server's error response: v1 `McpError` or v2 `ProtocolError` (numeric `code`). */
export function jsonRpcCodeOf(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'number' || !Number.isInteger(code)) return undefined;
  return error.name === 'McpError' || error.name === 'ProtocolError' || hasV2Brand(error, 'ProtocolError')
    ? code
    : undefined;
}
