import { show } from '../checkOptions.js';
import type { ErrorType } from '../classify/Classification.js';
import type { Resilience } from '../createResilience.js';
import type { ExperimentOptions } from '../experiment/ExperimentOptions.js';
import { mcpFromFlat, TOP_LEVEL_NAMES } from '../options/fromFlat.js';
import { MCP_PATHS } from '../options/optionPaths.js';
import { isPlainObject, readOptions } from '../options/readOptions.js';
import {
  idempotency,
  listOf,
  negativeCacheChecks,
  nonEmptyString,
  sharedPipelineError,
} from '../options/toolChecks.js';
import { refuseUnknownNames } from '../options/unknownOption.js';
import type { ResilienceOptions } from '../options.js';
import { type FallbackTarget, isFallbackTarget } from './fallback.js';
import type { ObservedFetch } from './observeFetch.js';
import { TERMINAL_OUTCOMES, type TerminalOutcome } from './outcomeResult.js';

/**
 * Which tools are safe to repeat after a failure that may have executed (timeout, reset after send, 5xx):
 * `'annotations'` (default): those whose `tools/list` annotations say `readOnlyHint` or `idempotentHint`;
 * `'always'`: every tool; `'never'`: none; or per tool, `{ tools: { create_item: false }, default? }` (the others
 * by `default`, `'annotations'` unless given). Read-only MCP methods always are; failures certainly not sent are
 * retried for any tool.
 */
export type Idempotency =
  | 'annotations'
  | 'always'
  | 'never'
  | {
      readonly default?: 'annotations' | 'always' | 'never';
      readonly tools: Readonly<Record<string, boolean>>;
    };

/** The outcomes `mcp.resultOn` can turn into an `isError` result: a non-retryable failure, or a terminal outcome. */
export type ResultOutcome = 'non_retryable' | TerminalOutcome;
const RESULT_OUTCOMES: readonly ResultOutcome[] = ['non_retryable', ...TERMINAL_OUTCOMES];

/** `negativeCache`: an identical `tools/call` that failed for good is answered again without a request. */
export interface NegativeCacheOptions {
  /** How long a failure is remembered; `0` turns the cache off. Default 30 000. */
  readonly ttlMs?: number;
  /** Failed calls remembered at most (least recently used dropped). Default 256. */
  readonly maxEntries?: number;
  /** The (non-retryable) failure types remembered. Default: invalid arguments, unknown tool, tool errors. */
  readonly types?: readonly ErrorType[];
}

/** The `mcp` group of `withResilience`. All optional. */
export interface McpOptions {
  /** The logical server name (breaker and budget key). Default: `serverInfo.name`, else `'mcp'`. */
  readonly server?: string;
  readonly idempotency?: Idempotency;
  /** A transport factory: re-initializes an expired session or a closed connection (see the README). */
  readonly reconnect?: () => object | Promise<object>;
  /** One breaker (and budget) per server (default), or per tool for `tools/call`. */
  readonly breakerScope?: 'server' | 'tool';
  /** The `observeFetch()` given to the HTTP transport, so that `Retry-After` reaches the classifier. */
  readonly fetch?: ObservedFetch;
  /**
   * For `tools/call`, the failures that resolve to an `isError` result a model can act on instead of a
   * `ResilienceError`: `'non_retryable'` (what was wrong and what to change), and the terminal outcomes
   * (`TERMINAL_OUTCOMES`: `'circuit_open'`, `'deadline'`, `'rate_limited'`, ...). Default: none.
   */
  readonly resultOn?: readonly ResultOutcome[];
  readonly negativeCache?: NegativeCacheOptions;
  /** Fallback servers, tried in order when a `tools/call` cannot be served here (see the README). */
  readonly fallbacks?: readonly FallbackTarget[];
}

/** Options of `withResilience`: the core groups (`createResilience`), the `mcp` group, or a shared `resilience`. */
export interface McpResilienceOptions extends ResilienceOptions, ExperimentOptions, FlatMcpOptions {
  readonly mcp?: McpOptions;
  /** Share one pipeline (breakers, budgets) between clients; core options must then be given to it, not here. */
  readonly resilience?: Resilience;
}

/**
 * The MCP options by their flat names: the resolved shape `withResilience` reads, and the names of the first
 * versions, still accepted for now (translated by `options/fromFlat.ts`). Users give the `mcp` group.
 */
export interface FlatMcpOptions {
  /**
   * The logical server name: the breaker, budget and adaptive-backoff key, and `mcp.resilience.server` in telemetry.
   * Default: the name the server gave in `initialize` (`serverInfo.name`), else `'mcp'`.
   */
  readonly server?: string;
  /**
   * Which tools are safe to repeat after a failure that may have executed (timeout, reset after send, 5xx):
   * `'annotations'` (default): those whose `tools/list` annotations say `readOnlyHint` or `idempotentHint` (the
   * tools are listed once before the first `tools/call`, and again after `notifications/tools/list_changed` or a
   * reconnection); `'assume-idempotent'`: every tool; `'never'`: none. Read-only MCP methods (`tools/list`,
   * `resources/read`, `prompts/get`, `ping`, ...) always are. Failures that were certainly not sent (connection
   * refused, 429, expired session) are retried for any tool.
   */
  readonly idempotency?: 'annotations' | 'assume-idempotent' | 'never';
  /** Per-tool overrides of `idempotency` (`true`: safe to repeat), because annotations from a server are hints. */
  readonly toolIdempotency?: Readonly<Record<string, boolean>>;
  /**
   * A transport factory. With it, an expired session (HTTP 404, or 400 about the session) and a closed connection
   * (-32000, `Not connected`, an exited stdio server) close the client and connect a fresh transport on it, then
   * retry when safe; a call made while disconnected connects first. Without it, these failures are classified and
   * surfaced, never retried. Give HTTP transports the same `observeFetch()` as `fetch` below. A transport of the
   * client's SDK line (v1 `@modelcontextprotocol/sdk` or v2 `@modelcontextprotocol/client`).
   */
  readonly reconnect?: () => object | Promise<object>;
  /**
   * `'throw'` (default): a non-retryable failure rejects with a `ResilienceError`; an `isError` result is returned
   * as it came, with its classification in `_meta`. `'result'`: for `tools/call`, a non-retryable failure resolves
   * to an `isError` result that tells the model what was wrong, that it was not retried, and what to change.
   */
  readonly nonRetryableAs?: 'throw' | 'result';
  /** One breaker (and budget) per server (default), or per tool for `tools/call`. */
  readonly breakerScope?: 'server' | 'tool';
  /** The `observeFetch()` given to the HTTP transport, so that `Retry-After` reaches the classifier. */
  readonly fetch?: ObservedFetch;
  /**
   * For `tools/call`, the other terminal outcomes that resolve to an `isError` result a model can act on (one
   * sentence: what failed, whether calling again can help, when; the classification in `_meta`) instead of a
   * `ResilienceError`: `'circuit_open'`, `'shed'` (the breaker's wait queue was full), `'deadline'`,
   * `'budget_exhausted'`, `'retries_exhausted'` (also when an inner resilience layer already retried),
   * `'rate_limited'` (the server's `Retry-After` is longer than `retryAfterMaxMs`: the result says how long to
   * wait), `'not_retried_unsafe'` (the failure may have run a tool that is not safe to repeat: the model should
   * check before calling again), `'not_recovered'` (an expired session or a closed connection that could not be
   * restored, or no `reconnect`). With all of them, only non-retryable failures (`nonRetryableAs`) and the
   * caller's own cancellations still throw. Default: none.
   */
  readonly resultOn?: readonly TerminalOutcome[];
  /**
   * How long a `tools/call` that failed for good is remembered: an identical repeat (same server, tool and
   * arguments) within this time is answered with the same result (or error) without a request. `0` turns it
   * off. Any successful call of a tool that is not read-only, and a change of the tools, clear it.
   */
  readonly negativeCacheTtlMs?: number;
  /** Failed calls remembered at most; the least recently used is dropped beyond. */
  readonly negativeCacheMaxEntries?: number;
  /**
   * The failure types remembered (non-retryable failures only). Default: `invalid_params`, `invalid_request`,
   * `parse_error`, `method_not_found`, `payload_too_large`, `tool_error`. Auth failures (`unauthorized`,
   * `forbidden`, `user_action_required`) are left out by default: a user may fix them.
   */
  readonly negativeCacheTypes?: readonly ErrorType[];
  /**
   * Fallback servers, tried in order when a `tools/call` cannot be served here: this server's breaker is open
   * (or its wait queue full), or the call failed with a retryable error after its attempts and sending it
   * elsewhere cannot run it twice. Only a fallback that lists the tool in `tools/list` gets it; each has its
   * own breaker, budget and retries (it shares this client's pipeline and telemetry, and its `breakerScope`,
   * `idempotency`, `toolIdempotency` and `rules`). `reconnect` and `fetch` belong to this server's transport and
   * are not passed on: give a fallback its own by passing it already wrapped (`withResilience(backup, { resilience,
   * reconnect, fetch })`), which is then used as it is. A fallback's success of a tool that is not read-only
   * clears the negative cache, as here; when the fallbacks fail too, the call ends with the last one's failure,
   * but nothing is remembered for a repeat: the model's repeat goes to this server again and gets its verdict.
   */
  readonly fallbacks?: readonly FallbackTarget[];
}

/** The MCP defaults, by resolved key. */
export const mcpDefaults = {
  idempotency: 'annotations',
  nonRetryableAs: 'throw',
  breakerScope: 'server',
  resultOn: [] as readonly TerminalOutcome[],
  negativeCacheTtlMs: 30_000,
  negativeCacheMaxEntries: 256,
  negativeCacheTypes: [
    'invalid_params',
    'invalid_request',
    'parse_error',
    'method_not_found',
    'payload_too_large',
    'tool_error',
  ] as readonly ErrorType[],
} as const;

const MCP_CHECKS = {
  server: nonEmptyString,
  idempotency: idempotency('annotations', 'always', 'never'),
  reconnect: (v: unknown) => (typeof v === 'function' ? undefined : 'a function returning a transport'),
  breakerScope: (v: unknown) => (v === 'server' || v === 'tool' ? undefined : "one of 'server', 'tool'"),
  fetch: (v: unknown) =>
    typeof (v as Partial<ObservedFetch> | undefined)?.failuresSince === 'function'
      ? undefined
      : 'the function returned by observeFetch()',
  resultOn: listOf(RESULT_OUTCOMES),
  ...negativeCacheChecks,
  fallbacks: (v: unknown) =>
    Array.isArray(v) && v.every(isFallbackTarget)
      ? undefined
      : 'an array of MCP clients or { client, server?, tools? } objects',
};

/** The MCP options as `withResilience` reads them (flat, idempotency and results resolved). */
export type ResolvedMcpOptions = Omit<FlatMcpOptions, 'idempotency'> & {
  readonly idempotency?: 'annotations' | 'assume-idempotent' | 'never';
  readonly resilience?: Resilience;
};

/**
 * Splits the options of `withResilience` into the `mcp` group (validated, in the resolved shape) and the core
 * options (validated by `createResilience`). Flat names are translated first (`fromFlat.ts`).
 */
export function splitMcpOptions(options: McpResilienceOptions = {}): {
  mcp: ResolvedMcpOptions;
  core: ResilienceOptions;
} {
  const owner = 'withResilience';
  if (!isPlainObject(options))
    throw new TypeError(`${owner}: options must be an object, got ${show(options)}`);
  refuseUnknownNames(owner, options, TOP_LEVEL_NAMES.withResilience);
  const { mcp: group, resilience, ...core } = mcpFromFlat(owner, options as McpResilienceOptions);
  const read = readOptions(owner, { mcp: group }, MCP_PATHS, MCP_CHECKS) as FlatMcpOptions & {
    idempotency?: Idempotency;
    resultOn?: readonly ResultOutcome[];
  };
  if (resilience !== undefined) {
    if (typeof (resilience as Partial<Resilience>).execute !== 'function') {
      throw new TypeError(`${owner}: option 'resilience' must be an object returned by createResilience()`);
    }
    const error = sharedPipelineError(owner, core);
    if (error) throw error;
  }
  const { idempotency: given, resultOn, ...rest } = read;
  const mcp: ResolvedMcpOptions = {
    ...rest,
    ...idempotencyOf(given),
    ...(resultOn === undefined ? {} : resultsOf(resultOn)),
    ...(resilience === undefined ? {} : { resilience }),
  };
  return { mcp, core };
}

/** The resolved `idempotency` mode and per-tool overrides. */
function idempotencyOf(
  given: Idempotency | undefined,
): Pick<ResolvedMcpOptions, 'idempotency' | 'toolIdempotency'> {
  if (given === undefined) return {};
  const mode = typeof given === 'string' ? given : (given.default ?? 'annotations');
  const resolved = mode === 'always' ? 'assume-idempotent' : mode;
  return typeof given === 'string'
    ? { idempotency: resolved }
    : { idempotency: resolved, toolIdempotency: given.tools };
}

/** `'non_retryable'` in `resultOn` is `nonRetryableAs: 'result'`; the rest are the terminal outcomes. */
function resultsOf(
  resultOn: readonly ResultOutcome[],
): Pick<ResolvedMcpOptions, 'nonRetryableAs' | 'resultOn'> {
  const terminal = resultOn.filter((o): o is TerminalOutcome => o !== 'non_retryable');
  return { nonRetryableAs: resultOn.includes('non_retryable') ? 'result' : 'throw', resultOn: terminal };
}
