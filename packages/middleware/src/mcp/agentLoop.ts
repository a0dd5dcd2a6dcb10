import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Classification } from '../classify/Classification.js';
import type { Resilience } from '../createResilience.js';
import type { ResilienceError } from '../errors/ResilienceError.js';
import type { ResilienceEvent } from '../record/ResilienceEvent.js';
import { callKey } from './callKey.js';
import { type FallbackOutcome, type FallbackRequest, fallbackRouter, shouldFallBack } from './fallback.js';
import { type McpResilienceOptions, mcpDefaults } from './McpResilienceOptions.js';
import { NegativeCache } from './NegativeCache.js';
import { outcomeResult, terminalOutcome } from './outcomeResult.js';

type Remembered = (
  | { readonly kind: 'result'; readonly result: unknown }
  | { readonly kind: 'error'; readonly error: unknown }
) & { readonly classification: Classification };
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
  const types = new Set<string>(options.negativeCacheTypes ?? mcpDefaults.negativeCacheTypes);
  const resultOn = new Set<string>(options.resultOn ?? mcpDefaults.resultOn);
  const cache = new NegativeCache<Remembered>(
    options.negativeCacheTtlMs ?? mcpDefaults.negativeCacheTtlMs,
    options.negativeCacheMaxEntries ?? mcpDefaults.negativeCacheMaxEntries,
  );
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
  const remembering = (options.negativeCacheTtlMs ?? mcpDefaults.negativeCacheTtlMs) > 0 && types.size > 0;

  return {
    /** The remembered outcome of an identical call that failed for good a moment ago, else `undefined`. */
    repeat(
      server: string,
      tool: string,
      args: unknown,
      attributes: Readonly<Record<string, string>>,
    ): Remembered | undefined {
      if (cache.size === 0) return undefined;
      const key = callKey(server, tool, args);
      const hit = key === undefined ? undefined : cache.get(key, now());
      if (!hit) return undefined;
      const { classification } = hit.value;
      emit({
        type: 'model_retry_avoided',
        time: now(),
        endpoint: server,
        operation: 'tools/call',
        attributes,
        classification,
        savedMs: hit.durationMs,
      });
      return hit.value.kind === 'result'
        ? { ...hit.value, result: { ...(hit.value.result as object) } }
        : hit.value;
    },

    /** Remembers what a call that failed for good settled to (a result, or the error thrown); returns it. */
    remember<T>(
      server: string,
      tool: string,
      args: unknown,
      error: ResilienceError,
      settled: T,
      durationMs: number,
    ): T {
      const c = error.classification;
      if (
        !remembering ||
        c.class !== 'non_retryable' ||
        error.reason !== 'non_retryable' ||
        !types.has(c.type)
      )
        return settled;
      const key = callKey(server, tool, args);
      if (key === undefined || (settled !== (error as unknown) && !smallEnough(settled))) return settled;
      const value: Remembered =
        settled === (error as unknown)
          ? { kind: 'error', error, classification: c }
          : { kind: 'result', result: settled, classification: c };
      cache.set(key, value, durationMs, now());
      return settled;
    },

    /** A call succeeded: unless the tool is read-only, the server's state may have changed, so forget. */
    succeeded(readOnly: boolean): void {
      if (!readOnly) cache.clear();
    },

    /** `notifications/tools/list_changed`: the tools (and what a call of them does) may have changed. */
    toolsChanged(): void {
      cache.clear();
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
