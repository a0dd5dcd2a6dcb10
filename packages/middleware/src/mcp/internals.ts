import type { CallContext } from '../call/CallContext.js';
import type { RequestArgs } from './sdkLine.js';
import type { ToolAnnotationCache } from './ToolAnnotationCache.js';

/** Read on a `withResilience` client: its tool listing and a typed request, for a fallback router. */
export const INTERNALS: unique symbol = Symbol.for('@mcp-resilience/withResilience.internals');

export interface ResilientInternals {
  /** The tools as last listed (names and annotations). */
  readonly tools: ToolAnnotationCache;
  /** Lists the tools again (all pages), once at a time; never rejects. */
  refreshTools(signal: AbortSignal | undefined): Promise<void>;
  /** The server name used as breaker key and `mcp.resilience.server`. */
  server(): string;
  /** Sends a request through this client's pipeline with a typed context (a fallback's `routedFrom`, variant). */
  request(
    request: { method: string; params?: Record<string, unknown> },
    args: RequestArgs,
    context: CallContext,
  ): Promise<unknown>;
}

/** The internals of a `withResilience` client, `undefined` for any other client. */
export function internalsOf(client: object): ResilientInternals | undefined {
  try {
    return (client as { [INTERNALS]?: ResilientInternals })[INTERNALS];
  } catch {
    return undefined;
  }
}
