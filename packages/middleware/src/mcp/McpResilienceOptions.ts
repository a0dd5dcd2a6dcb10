import type { ErrorType } from '../classify/Classification.js';
import type { Resilience } from '../createResilience.js';
import type { ExperimentOptions } from '../experiment/ExperimentOptions.js';
import type { ResilienceOptions } from '../options.js';
import { checkNegativeCacheOptions } from './checkNegativeCacheOptions.js';
import { type FallbackTarget, isFallbackTarget } from './fallback.js';
import type { ObservedFetch } from './observeFetch.js';
import { TERMINAL_OUTCOMES, type TerminalOutcome } from './outcomeResult.js';

/** Options of `withResilience`: every core option (`createResilience`), plus the MCP ones below. All optional. */
export interface McpResilienceOptions extends ResilienceOptions, ExperimentOptions {
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
  /** Share one pipeline (breakers, budgets) between clients; core options must then be given to it, not here. */
  readonly resilience?: Resilience;
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

const MCP_KEYS = [
  'server',
  'idempotency',
  'toolIdempotency',
  'reconnect',
  'nonRetryableAs',
  'breakerScope',
  'fetch',
  'resilience',
  'resultOn',
  'negativeCacheTtlMs',
  'negativeCacheMaxEntries',
  'negativeCacheTypes',
  'fallbacks',
] as const;

/** Splits the options into the MCP ones (validated) and the core ones. */
export function splitMcpOptions(options: McpResilienceOptions): {
  mcp: Pick<McpResilienceOptions, (typeof MCP_KEYS)[number]>;
  core: ResilienceOptions;
} {
  const mcp: Record<string, unknown> = {};
  const core: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options ?? {})) {
    ((MCP_KEYS as readonly string[]).includes(key) ? mcp : core)[key] = value;
  }
  const fail = (name: string, allowed: string, value: unknown) => {
    throw new TypeError(
      `withResilience: option '${name}' must be ${allowed}, got ${JSON.stringify(value) ?? typeof value}`,
    );
  };
  const { server, idempotency, toolIdempotency, reconnect, nonRetryableAs, breakerScope, fetch, resilience } =
    mcp;
  if (server !== undefined && (typeof server !== 'string' || server === ''))
    fail('server', 'a non-empty string', server);
  if (
    idempotency !== undefined &&
    !['annotations', 'assume-idempotent', 'never'].includes(idempotency as string)
  ) {
    fail('idempotency', "one of 'annotations', 'assume-idempotent', 'never'", idempotency);
  }
  if (
    toolIdempotency !== undefined &&
    (typeof toolIdempotency !== 'object' ||
      toolIdempotency === null ||
      Object.values(toolIdempotency).some((v) => typeof v !== 'boolean'))
  ) {
    fail('toolIdempotency', 'an object of booleans by tool name', toolIdempotency);
  }
  if (reconnect !== undefined && typeof reconnect !== 'function')
    fail('reconnect', 'a function returning a transport', reconnect);
  if (nonRetryableAs !== undefined && !['throw', 'result'].includes(nonRetryableAs as string)) {
    fail('nonRetryableAs', "one of 'throw', 'result'", nonRetryableAs);
  }
  if (breakerScope !== undefined && !['server', 'tool'].includes(breakerScope as string)) {
    fail('breakerScope', "one of 'server', 'tool'", breakerScope);
  }
  if (fetch !== undefined && typeof (fetch as Partial<ObservedFetch>).failuresSince !== 'function') {
    fail('fetch', 'the function returned by observeFetch()', typeof fetch);
  }
  checkAgentLoopOptions(mcp, fail);
  if (resilience !== undefined) {
    if (typeof (resilience as Partial<Resilience>).execute !== 'function') {
      fail('resilience', 'an object returned by createResilience()', typeof resilience);
    }
    const given = Object.keys(core).filter((k) => k !== 'rules');
    if (given.length > 0) {
      throw new TypeError(
        `withResilience: options ${given.join(', ')} cannot be combined with 'resilience'; give them to createResilience()`,
      );
    }
  }
  return { mcp, core };
}

const isListOf = (value: unknown, allowed: readonly string[]) =>
  Array.isArray(value) && value.every((v) => typeof v === 'string' && allowed.includes(v));

/** Validates `resultOn`, the negative cache and `fallbacks`. */
function checkAgentLoopOptions(
  mcp: Record<string, unknown>,
  fail: (name: string, allowed: string, value: unknown) => void,
): void {
  const { resultOn, fallbacks } = mcp;
  if (resultOn !== undefined && !isListOf(resultOn, TERMINAL_OUTCOMES)) {
    fail('resultOn', `an array of ${TERMINAL_OUTCOMES.map((o) => `'${o}'`).join(', ')}`, resultOn);
  }
  checkNegativeCacheOptions(mcp, fail);
  if (fallbacks !== undefined && !(Array.isArray(fallbacks) && fallbacks.every(isFallbackTarget))) {
    const got = Array.isArray(fallbacks)
      ? `an array with ${fallbacks.filter((f) => !isFallbackTarget(f)).length} invalid entries`
      : typeof fallbacks;
    fail('fallbacks', 'an array of MCP clients or { client, server?, tools? } objects', got);
  }
}
