import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Resilience } from '../createResilience.js';
import type { ResilienceOptions } from '../options.js';
import type { ObservedFetch } from './observeFetch.js';

/** Options of `withResilience`: every core option, plus the MCP ones below. All optional. */
export interface McpResilienceOptions extends ResilienceOptions {
  /** The logical server name: breaker and budget key, and `mcp.server` in telemetry. Default: the server's own name. */
  readonly server?: string;
  /**
   * Which tools are safe to repeat after an ambiguous failure (timeout, reset, 5xx):
   * `'annotations'`: those whose `tools/list` annotations say `readOnlyHint` or `idempotentHint`;
   * `'assume-idempotent'`: all; `'never'`: none. Read-only MCP methods (`tools/list`, `resources/read`, ...) always are.
   */
  readonly idempotency?: 'annotations' | 'assume-idempotent' | 'never';
  /** Per-tool overrides of `idempotency`, because annotations from an untrusted server are only hints. */
  readonly toolIdempotency?: Readonly<Record<string, boolean>>;
  /** A transport factory: with it, an expired session or a closed connection reconnects, then retries when safe. */
  readonly reconnect?: () => Transport | Promise<Transport>;
  /**
   * `'throw'`: a non-retryable failure rejects (isError results are returned as they came).
   * `'result'`: for `tools/call`, it resolves to an `isError` result that tells the model what was wrong, that it
   * was not retried, and what to change.
   */
  readonly nonRetryableAs?: 'throw' | 'result';
  /** One breaker per server (default) or per tool. */
  readonly breakerScope?: 'server' | 'tool';
  /** The `observeFetch()` given to the HTTP transport, so that `Retry-After` reaches the classifier. */
  readonly fetch?: ObservedFetch;
  /** Share one pipeline (breakers, budgets) between clients; core options must then be given to it, not here. */
  readonly resilience?: Resilience;
}

export const mcpDefaults = {
  idempotency: 'annotations',
  nonRetryableAs: 'throw',
  breakerScope: 'server',
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
    throw new TypeError(`withResilience: option '${name}' must be ${allowed}, got ${JSON.stringify(value) ?? typeof value}`);
  };
  const { server, idempotency, toolIdempotency, reconnect, nonRetryableAs, breakerScope, fetch, resilience } = mcp;
  if (server !== undefined && (typeof server !== 'string' || server === '')) fail('server', 'a non-empty string', server);
  if (idempotency !== undefined && !['annotations', 'assume-idempotent', 'never'].includes(idempotency as string)) {
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
  if (reconnect !== undefined && typeof reconnect !== 'function') fail('reconnect', 'a function returning a transport', reconnect);
  if (nonRetryableAs !== undefined && !['throw', 'result'].includes(nonRetryableAs as string)) {
    fail('nonRetryableAs', "one of 'throw', 'result'", nonRetryableAs);
  }
  if (breakerScope !== undefined && !['server', 'tool'].includes(breakerScope as string)) {
    fail('breakerScope', "one of 'server', 'tool'", breakerScope);
  }
  if (fetch !== undefined && typeof (fetch as Partial<ObservedFetch>).failuresSince !== 'function') {
    fail('fetch', 'the function returned by observeFetch()', typeof fetch);
  }
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
