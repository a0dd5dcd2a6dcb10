import type { Finding } from '../Finding.js';
import type { ErrorFacts } from '../inspectError.js';

/**
 * An MCP `CallToolResult` with `isError: true`, passed as the error, that no message rule recognised: the tool ran
 * and reported a failure the model should see: `non_retryable` (the same call cannot succeed), `executed`, and
 * neutral for the breaker: a tool's own error says nothing about the server's health.
 */
export function toolResult(facts: readonly ErrorFacts[]): Finding | undefined {
  return facts[0]?.toolResult === true
    ? {
        class: 'non_retryable',
        type: 'tool_error',
        execution: 'executed',
        source: 'tool_result',
      }
    : undefined;
}
