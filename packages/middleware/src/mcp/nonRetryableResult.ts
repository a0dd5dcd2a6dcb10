import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ResilienceError } from '../errors/ResilienceError.js';

const advice: Partial<Record<string, string>> = {
  invalid_params: 'Check the arguments against the tool’s input schema and call it again with corrected arguments.',
  invalid_request: 'Change the request (arguments or tool) before calling again.',
  method_not_found: 'This tool or method does not exist on the server: list the tools and pick an existing one.',
  not_found: 'The thing asked for does not exist: check the identifiers in the arguments.',
  unauthorized: 'The credentials are missing or invalid: a human has to fix them; do not call again as is.',
  forbidden: 'Access is denied for this operation: choose another action or ask the user.',
  quota_exceeded: 'The quota is exhausted: do not call again until it is raised.',
  payload_too_large: 'The request is too large: send less data (smaller arguments, fewer items).',
  user_action_required: 'A human has to act (for example open a URL) before this can succeed.',
  tool_error: 'The tool reported an error: read it, and change the arguments or the approach before calling again.',
};

/** The `isError` result a model reads instead of an exception: what was wrong, that it was not retried, what to change. */
export function nonRetryableResult(error: ResilienceError, tool: string | undefined): CallToolResult {
  const c = error.classification;
  const what = c.message ?? 'the call failed';
  const text = [
    `Tool call${tool ? ` '${tool}'` : ''} failed with a non-retryable error (${c.type}): ${what}`,
    `It was not retried (${error.attempts} attempt${error.attempts === 1 ? '' : 's'}): repeating the same call cannot succeed.`,
    advice[c.type] ?? 'Change the arguments or the approach before calling again.',
  ].join('\n');
  return { content: [{ type: 'text', text }], isError: true };
}
