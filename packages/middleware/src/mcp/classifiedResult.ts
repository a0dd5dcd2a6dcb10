import type { CallToolResult } from './ToolResultError.js';

/** `CLASSIFICATION_META_KEY` of `withResilience.ts`, here so that result builders can read it without a cycle. */
const KEY = 'io.mcp-resilience/classification';

/**
 * Whether a tool result was already settled by another mcp-resilience layer (a chained proxy, or a server that
 * uses the middleware itself): its `_meta` carries that layer's classification, and its content already holds
 * the sentence the model reads.
 */
export function isClassifiedResult(result: CallToolResult | undefined): boolean {
  const meta = result?._meta as Record<string, unknown> | undefined;
  return typeof meta?.[KEY] === 'object' && meta[KEY] !== null;
}
