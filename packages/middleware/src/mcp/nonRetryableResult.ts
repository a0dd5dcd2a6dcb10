import type { Classification, ErrorType } from '../classify/Classification.js';
import { isClassifiedResult } from './classifiedResult.js';
import type { CallToolResult } from './ToolResultError.js';

const advice: Partial<Record<ErrorType, string>> = {
  invalid_params:
    'Check the arguments against the tool’s input schema, then call it again with corrected arguments.',
  invalid_request: 'Change the request (the arguments, or the tool) before calling again.',
  parse_error: 'The request could not be read by the server: change the arguments before calling again.',
  method_not_found: 'This tool does not exist on the server: list the tools and pick an existing one.',
  not_found: 'What was asked for does not exist: check the identifiers in the arguments.',
  unauthorized: 'The credentials are missing or invalid: a human has to fix them; do not call again as is.',
  forbidden: 'Access is denied for this operation: choose another action, or ask the user.',
  quota_exceeded: 'The quota is used up: do not call again until it is raised; tell the user.',
  payload_too_large: 'The request is too large: send less data (shorter arguments, fewer items).',
  user_action_required: 'A human has to act first (for example open a URL); ask the user, then call again.',
  tool_error:
    'The tool reported an error: read it, and change the arguments or the approach before calling again.',
};

/** What to tell a model to change after a non-retryable failure of this type. */
export function adviceFor(type: ErrorType): string {
  return advice[type] ?? 'Change the arguments or the approach before calling again.';
}

/** The text a model reads: what was wrong, that it was not retried, what to change. */
export function nonRetryableText(
  classification: Classification,
  attempts: number,
  tool: string | undefined,
): string {
  const what = classification.message ?? 'the call failed';
  return [
    `Tool call${tool ? ` '${tool}'` : ''} failed with a non-retryable error (${classification.type}): ${what}`,
    `It was not retried (${attempts} attempt${attempts === 1 ? '' : 's'} made): calling it again with the same arguments cannot succeed.`,
    adviceFor(classification.type),
  ].join('\n');
}

/**
 * The `isError` result a model reads instead of an exception (`nonRetryableAs: 'result'`). For a result the tool
 * returned itself, its content is kept and the explanation is appended as a last text block, unless another
 * mcp-resilience layer already explained it (chained layers): then it is kept as it is, with one sentence.
 */
export function nonRetryableResult(
  classification: Classification,
  attempts: number,
  tool: string | undefined,
  original?: CallToolResult,
): CallToolResult {
  if (original && isClassifiedResult(original)) return { ...original, isError: true };
  const text = nonRetryableText(classification, attempts, tool);
  if (original) {
    const content = Array.isArray(original.content) ? original.content : [];
    return { ...original, content: [...content, { type: 'text', text }], isError: true };
  }
  return { content: [{ type: 'text', text }], isError: true };
}
