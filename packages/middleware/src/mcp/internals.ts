import type { ToolAnnotationCache } from './ToolAnnotationCache.js';

/** Read on a `withResilience` client: its tool listing, so that a fallback router can ask which tools it has. */
export const INTERNALS: unique symbol = Symbol.for('@mcp-resilience/withResilience.internals');

/**
 * Set in a request's options by the fallback router: the primary server the call was sent on from. The
 * fallback's call span carries it as `mcp.resilience.fallback.from`.
 */
export const FALLBACK_FROM: unique symbol = Symbol.for('@mcp-resilience/withResilience.fallbackFrom');

/**
 * Set in a request's options by the fallback router in an experiment: the variant the primary call ran on. The
 * fallback call runs on the same variant, so the whole call stays in one arm.
 */
export const FALLBACK_VARIANT: unique symbol = Symbol.for('@mcp-resilience/withResilience.fallbackVariant');

export interface ResilientInternals {
  /** The tools as last listed (names and annotations). */
  readonly tools: ToolAnnotationCache;
  /** Lists the tools again (all pages), once at a time; never rejects. */
  refreshTools(signal: AbortSignal | undefined): Promise<void>;
  /** The server name used as breaker key and `mcp.resilience.server`. */
  server(): string;
}

/** The internals of a `withResilience` client, `undefined` for any other client. */
export function internalsOf(client: object): ResilientInternals | undefined {
  try {
    return (client as { [INTERNALS]?: ResilientInternals })[INTERNALS];
  } catch {
    return undefined;
  }
}
