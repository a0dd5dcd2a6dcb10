import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Resilience } from '../createResilience.js';
import type { ResilienceError } from '../errors/ResilienceError.js';
import type { ResilienceEvent } from '../record/ResilienceEvent.js';
import { type FallbackOutcome, type FallbackRequest, fallbackRouter, shouldFallBack } from './fallback.js';
import { type McpResilienceOptions, mcpDefaults } from './McpResilienceOptions.js';
import { ModelRepeats } from './ModelRepeats.js';
import { outcomeResult, terminalOutcome } from './outcomeResult.js';

type Settled =
  | { readonly kind: 'result'; readonly result: unknown }
  | { readonly kind: 'error'; readonly error: unknown };
type Options = Pick<
  McpResilienceOptions,
  'resultOn' | 'negativeCacheTtlMs' | 'negativeCacheMaxEntries' | 'negativeCacheTypes' | 'fallbacks'
>;

/** A remembered result larger than this (as JSON) is not kept: the cache holds at most entries × this. */
const MAX_REMEMBERED_RESULT_CHARS = 64 * 1024;

const smallEnough = (result: unknown): boolean => {
  try {
    return (JSON.stringify(result)?.length ?? 0) <= MAX_REMEMBERED_RESULT_CHARS;
  } catch {
    return false;
  }
};

/**
 * What `withResilience` does about the agent loop around a `tools/call`: answers the model's identical repeats
 * of a call that failed for good from a negative cache, turns the `resultOn` outcomes into results, and sends
 * calls the server cannot serve to fallback servers. `wrap` makes a fallback client resilient.
 */
export function agentLoop(
  options: Options,
  resilience: Resilience,
  wrap: (client: Client, server: string) => Client,
) {
  const { clock, recorder } = resilience.options;
  const resultOn = new Set<string>(options.resultOn ?? mcpDefaults.resultOn);
  const repeats = new ModelRepeats<Settled>(options, clock, recorder);
  const emit = (event: ResilienceEvent) => {
    try {
      recorder.record(event);
    } catch {
      // telemetry never breaks the call
    }
  };
  const now = () => clock.now();
  const route =
    options.fallbacks && options.fallbacks.length > 0
      ? fallbackRouter(options.fallbacks, wrap, emit, now)
      : undefined;

  return {
    /**
     * The remembered outcome of an identical call that failed for good a moment ago, else `undefined`; in an
     * experiment, only one that ran on the variant in `attributes` (`mcp.resilience.variant`).
     */
    repeat(
      server: string,
      tool: string,
      args: unknown,
      attributes: Readonly<Record<string, string>>,
    ): Settled | undefined {
      const hit = repeats.repeat(server, tool, args, attributes)?.value;
      return hit?.kind === 'result' ? { kind: 'result', result: { ...(hit.result as object) } } : hit;
    },

    /**
     * Remembers what a call that failed for good settled to (a result, or the error thrown); returns it.
     * `variant`: the experiment variant the call ran on (its repeats are answered only on that variant).
     */
    remember<T>(
      server: string,
      tool: string,
      args: unknown,
      error: ResilienceError,
      settled: T,
      durationMs: number,
      variant?: string,
    ): T {
      if (settled === (error as unknown)) {
        repeats.remember(server, tool, args, error, { kind: 'error', error }, durationMs, variant);
      } else if (smallEnough(settled)) {
        repeats.remember(server, tool, args, error, { kind: 'result', result: settled }, durationMs, variant);
      }
      return settled;
    },

    /** A call succeeded: unless the tool is read-only, the server's state may have changed, so forget. */
    succeeded(readOnly: boolean): void {
      if (!readOnly) repeats.clear();
    },

    /** `notifications/tools/list_changed`: the tools (and what a call of them does) may have changed. */
    toolsChanged(): void {
      repeats.clear();
    },

    /** Sends a failed call to the fallback servers, when it should go there. */
    async fallBack(call: FallbackRequest & { readonly safeToRepeat: boolean }): Promise<FallbackOutcome> {
      if (!route || !shouldFallBack(call.cause, call.safeToRepeat)) return { kind: 'none' };
      return route(call);
    },

    /** The `isError` result for a `resultOn` outcome, `undefined` when the outcome is not opted in. */
    asResult(error: ResilienceError, tool: string | undefined): CallToolResult | undefined {
      const outcome = terminalOutcome(error);
      return outcome !== undefined && resultOn.has(outcome) ? outcomeResult(outcome, error, tool) : undefined;
    },
  };
}
