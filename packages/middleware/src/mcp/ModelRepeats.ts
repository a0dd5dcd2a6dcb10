import type { Clock } from '../Clock.js';
import type { Classification, ErrorType } from '../classify/Classification.js';
import type { ResilienceError } from '../errors/ResilienceError.js';
import { ATTR_MCP_RESILIENCE_VARIANT } from '../otel/semconv.js';
import type { Recorder } from '../record/Recorder.js';
import { callKey } from './callKey.js';
import { mcpDefaults } from './McpResilienceOptions.js';
import { NegativeCache } from './NegativeCache.js';

export interface ModelRepeatsOptions {
  readonly negativeCacheTtlMs?: number;
  readonly negativeCacheMaxEntries?: number;
  readonly negativeCacheTypes?: readonly ErrorType[];
}

/** What a remembered call settled to, with the failure's classification. */
export interface Remembered<T> {
  readonly value: T;
  readonly classification: Classification;
  /** The attempts the failed call made: what a repeat would have sent. */
  readonly attempts: number;
}

/**
 * The model's repeats of a tool call that failed for good: remembers what such a call settled to (a result, an
 * error) in a {@link NegativeCache} keyed by server, tool and canonical arguments, and answers an identical
 * repeat from it, recording a `model_retry_avoided` event. Only non-retryable failures of the configured types
 * are remembered. In an experiment the variant is part of the key (the repeat's `mcp.resilience.variant`, the
 * failed call's `variant`): one variant's verdict never answers the other's calls.
 */
export class ModelRepeats<T> {
  private readonly cache: NegativeCache<Remembered<T>>;
  private readonly types: ReadonlySet<string>;
  private readonly on: boolean;

  constructor(
    options: ModelRepeatsOptions,
    private readonly clock: Clock,
    private readonly recorder: Recorder,
  ) {
    const ttl = options.negativeCacheTtlMs ?? mcpDefaults.negativeCacheTtlMs;
    this.types = new Set(options.negativeCacheTypes ?? mcpDefaults.negativeCacheTypes);
    this.on = ttl > 0 && this.types.size > 0;
    this.cache = new NegativeCache(
      ttl,
      options.negativeCacheMaxEntries ?? mcpDefaults.negativeCacheMaxEntries,
    );
  }

  /** What an identical call that failed for good a moment ago settled to, else `undefined`. */
  repeat(
    server: string,
    tool: string,
    args: unknown,
    attributes: Readonly<Record<string, string>>,
  ): Remembered<T> | undefined {
    if (this.cache.size === 0) return undefined;
    const key = cacheKey(server, tool, args, attributes[ATTR_MCP_RESILIENCE_VARIANT]);
    const hit = key === undefined ? undefined : this.cache.get(key, this.clock.now());
    if (!hit) return undefined;
    try {
      this.recorder.record({
        type: 'model_retry_avoided',
        time: this.clock.now(),
        endpoint: server,
        operation: 'tools/call',
        attributes,
        classification: hit.value.classification,
        savedMs: hit.durationMs,
        savedAttempts: hit.value.attempts,
      });
    } catch {
      // telemetry never breaks the call
    }
    return hit.value;
  }

  /**
   * Remembers `value` for a call that ended with `error`, when that failure is one to remember; `variant`: the
   * experiment variant the call ran on.
   */
  remember(
    server: string,
    tool: string,
    args: unknown,
    error: ResilienceError,
    value: T,
    durationMs: number,
    variant?: string,
  ): void {
    const c = error.classification;
    if (
      !this.on ||
      c.class !== 'non_retryable' ||
      error.reason !== 'non_retryable' ||
      !this.types.has(c.type)
    )
      return;
    const key = cacheKey(server, tool, args, variant);
    if (key !== undefined) {
      this.cache.set(
        key,
        { value, classification: c, attempts: error.attempts },
        durationMs,
        this.clock.now(),
      );
    }
  }

  /** Forgets everything: the server's state may have changed. */
  clear(): void {
    this.cache.clear();
  }
}

/** {@link callKey}, prefixed with the variant in an experiment. */
function cacheKey(
  server: string,
  tool: string,
  args: unknown,
  variant: string | undefined,
): string | undefined {
  const key = callKey(server, tool, args);
  return key === undefined || variant === undefined || variant === '' ? key : `${variant}\n${key}`;
}
