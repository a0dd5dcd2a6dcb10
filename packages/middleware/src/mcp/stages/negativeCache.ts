import type { ErrorType } from '../../classify/Classification.js';
import type { Resilience } from '../../createResilience.js';
import { callAttributes } from '../../record/callAttributes.js';
import { guardedEmit } from '../../record/guardedEmit.js';
import { callKey } from '../callKey.js';
import { mcpDefaults } from '../McpResilienceOptions.js';
import { NegativeCache } from '../NegativeCache.js';
import type { Settled } from './Settled.js';
import type { Stage, StageCall } from './Stage.js';

/** The negative cache's settings (resolved from `mcp.negativeCache` or `guard.negativeCache`). */
export interface NegativeCacheSettings {
  readonly negativeCacheTtlMs?: number;
  readonly negativeCacheMaxEntries?: number;
  readonly negativeCacheTypes?: readonly ErrorType[];
}

type Failed = Extract<Settled, { kind: 'failed' }>;

/** A remembered result larger than this (as JSON) is not kept: the cache holds at most entries × this. */
const MAX_REMEMBERED_RESULT_CHARS = 64 * 1024;

const smallEnough = (result: unknown): boolean => {
  try {
    return (JSON.stringify(result)?.length ?? 0) <= MAX_REMEMBERED_RESULT_CHARS;
  } catch {
    return false;
  }
};

/** Whether the call's own context lets its failure be kept: its `rememberFailure` (a throw: not kept). */
function rememberable(call: StageCall): boolean {
  const ask = call.options.rememberFailure;
  if (ask === undefined) return true;
  try {
    return ask() !== false;
  } catch {
    return false;
  }
}

/**
 * The cache key: {@link callKey}, prefixed with the variant in an experiment (one arm never answers the other)
 * and with the caller when one client serves several (one caller's failure never answers another's call).
 */
function keyOf(call: StageCall): string | undefined {
  const key = callKey(call.server, call.tool, call.arguments);
  const { variant, caller } = call.options;
  if (key === undefined || (!variant && !caller)) return key;
  return `${JSON.stringify([variant ?? '', caller ?? ''])}\n${key}`;
}

/**
 * The model's repeats of a tool call that failed for good: remembers what such a call settled to (a result or
 * the error) and answers an identical repeat (same server, tool, arguments, variant and caller) from memory,
 * recording a `model_retry_avoided` event. Only non-retryable failures of the configured types on this server
 * are kept, and not when the call's `rememberFailure` says the failure depended on the moment; a success that may
 * have changed the server's state, or a change of the tools, forgets everything (every caller's: the server is
 * shared).
 */
export function negativeCache(options: NegativeCacheSettings, resilience: Resilience): Stage {
  const { clock, recorder } = resilience.options;
  const ttl = options.negativeCacheTtlMs ?? mcpDefaults.negativeCacheTtlMs;
  const types: ReadonlySet<string> = new Set(options.negativeCacheTypes ?? mcpDefaults.negativeCacheTypes);
  const max = options.negativeCacheMaxEntries ?? mcpDefaults.negativeCacheMaxEntries;
  const cache = new NegativeCache<Failed>(ttl > 0 && types.size > 0 ? ttl : 0, max);
  const emit = guardedEmit(recorder);
  const worthKeeping = ({ error, answer, fallback }: Failed) =>
    fallback !== true &&
    error.reason === 'non_retryable' &&
    error.classification.class === 'non_retryable' &&
    types.has(error.classification.type) &&
    (answer.kind === 'throw' || smallEnough(answer.result));

  return {
    before(call) {
      if (cache.size === 0) return undefined;
      const key = keyOf(call);
      const hit = key === undefined ? undefined : cache.get(key, clock.now());
      if (!hit) return undefined;
      const { error, answer } = hit.value;
      emit({
        type: 'model_retry_avoided',
        time: clock.now(),
        endpoint: call.server,
        operation: 'tools/call',
        attributes: callAttributes(call.options),
        classification: error.classification,
        savedMs: hit.durationMs,
        savedAttempts: error.attempts,
      });
      const replayed =
        answer.kind === 'result' ? { ...answer, result: { ...(answer.result as object) } } : answer;
      return { ...hit.value, answer: replayed, repeat: true };
    },
    after(call, settled) {
      if (settled.kind === 'value') {
        if (settled.changedState) cache.clear();
      } else if (worthKeeping(settled) && rememberable(call)) {
        const key = keyOf(call);
        if (key !== undefined) cache.set(key, settled, clock.now() - call.startedAt, clock.now());
      }
      return settled;
    },
    toolsChanged: () => cache.clear(),
  };
}
