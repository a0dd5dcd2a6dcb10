import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isResilienceError, type ResilienceError } from '../errors/ResilienceError.js';
import { ATTR_MCP_RESILIENCE_VARIANT } from '../otel/semconv.js';
import type { FallbackEvent } from '../record/ResilienceEvent.js';
import { FALLBACK_FROM, FALLBACK_VARIANT, internalsOf } from './internals.js';

/**
 * A fallback server for `withResilience`: an MCP `Client` (connected by its owner), or one with the name to use
 * for it (breaker key and `mcp.resilience.server`; default: its `serverInfo.name`, suffixed with `#<n>` when it equals the
 * primary's) and the tools it stands in for (default: every tool it lists).
 */
export type FallbackTarget =
  | Client
  | { readonly client: Client; readonly server?: string; readonly tools?: readonly string[] };

const isClient = (value: unknown): value is Client =>
  typeof (value as { request?: unknown } | null)?.request === 'function';

/** A valid `fallbacks` entry: a client, or `{ client, server?, tools? }` with a non-empty name and tool names. */
export function isFallbackTarget(value: unknown): value is FallbackTarget {
  if (isClient(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  const { client, server, tools } = value as { client?: unknown; server?: unknown; tools?: unknown };
  return (
    isClient(client) &&
    (server === undefined || (typeof server === 'string' && server !== '')) &&
    (tools === undefined || (Array.isArray(tools) && tools.every((t) => typeof t === 'string')))
  );
}

/** Reasons after which a call may go to a fallback: the primary refused it, or failed it with a passing error. */
const ROUTED_REASONS: ReadonlySet<string> = new Set([
  'circuit_open',
  'shed',
  'max_attempts',
  'budget_exhausted',
  'not_idempotent',
  'retry_after_too_long',
]);

/**
 * Whether a failed call may go to a fallback server: the primary's breaker was open (or its wait queue full), or
 * the call failed with a retryable or conditional error after its attempts; and sending it elsewhere cannot run
 * it twice (it was never sent, or the tool is safe to repeat). Never after a non-retryable failure, a deadline
 * or a cancellation.
 */
export function shouldFallBack(error: ResilienceError, safeToRepeat: boolean): boolean {
  const c = error.classification;
  if (!ROUTED_REASONS.has(error.reason as string)) return false;
  if (c.class === 'non_retryable' || c.type === 'cancelled') return false;
  return c.execution === 'not_sent' || safeToRepeat;
}

export type FallbackOutcome =
  /** No fallback lists the tool (or none is connected). */
  | { readonly kind: 'none' }
  /**
   * A fallback answered: its result (an `isError` result included: the tool ran); `readOnly`: the fallback
   * annotates the tool `readOnlyHint`.
   */
  | { readonly kind: 'value'; readonly value: unknown; readonly readOnly: boolean }
  /** Every fallback that lists the tool failed: the last one's error. */
  | { readonly kind: 'failed'; readonly error: unknown };

interface Routed {
  readonly client: Client;
  readonly tools: readonly string[] | undefined;
}

export interface FallbackRequest {
  readonly request: { method: string; params?: Record<string, unknown> };
  readonly schema: unknown;
  readonly options: RequestOptions | undefined;
  readonly tool: string;
  readonly primary: string;
  /** The primary call's attributes, for the fallback event. */
  readonly attributes: Readonly<Record<string, string>>;
  readonly cause: ResilienceError;
}

/**
 * Sends failed `tools/call`s to the next fallback server that lists the tool (checked against its `tools/list`,
 * listed again after `notifications/tools/list_changed`), in order. Each fallback is a `withResilience` client
 * of its own (its own breaker, budget and retries), made by `wrap` on first use.
 */
export function fallbackRouter(
  targets: readonly FallbackTarget[],
  wrap: (client: Client, server: string) => Client,
  emit: (event: FallbackEvent) => void,
  now: () => number,
) {
  const routed: Routed[] = targets.map((t) =>
    isClient(t) ? { client: t, tools: undefined } : { client: t.client, tools: t.tools },
  );
  const names = targets.map((t) => (isClient(t) ? undefined : t.server));
  const wrapped = new Map<number, Client>();

  const clientAt = (index: number, primary: string): Client | undefined => {
    const existing = wrapped.get(index);
    if (existing) return existing;
    const { client } = routed[index] as Routed;
    if (internalsOf(client)) {
      wrapped.set(index, client);
      return client;
    }
    const announced = client.getServerVersion()?.name;
    if (names[index] === undefined && announced === undefined) return undefined; // not connected yet
    let name = names[index] ?? (announced as string);
    if (name === primary) name = `${name}#${index + 1}`;
    const made = wrap(client, name);
    wrapped.set(index, made);
    return made;
  };

  return async function route(call: FallbackRequest): Promise<FallbackOutcome> {
    let last: FallbackOutcome = { kind: 'none' };
    for (let index = 0; index < routed.length; index++) {
      const { tools } = routed[index] as Routed;
      if (tools !== undefined && !tools.includes(call.tool)) continue;
      const client = clientAt(index, call.primary);
      const internals = client && internalsOf(client);
      if (!client || !internals) continue;
      if (internals.tools.needsRefresh(now())) await internals.refreshTools(call.options?.signal);
      if (internals.tools.get(call.tool) === undefined) continue;
      const start = now();
      const target = internals.server();
      const requestFn = client.request as unknown as (
        r: FallbackRequest['request'],
        ...rest: unknown[]
      ) => Promise<unknown>;
      const variant = call.attributes[ATTR_MCP_RESILIENCE_VARIANT];
      const options = {
        ...call.options,
        [FALLBACK_FROM]: call.primary,
        ...(variant === undefined ? {} : { [FALLBACK_VARIANT]: variant }),
      };
      try {
        // The SDK line's own form: v1 passes the result schema, v2 only the options.
        const value = await (call.schema === undefined
          ? requestFn.call(client, call.request, options)
          : requestFn.call(client, call.request, call.schema, options));
        emit(
          event(
            call,
            target,
            start,
            now(),
            (value as CallToolResult)?.isError === true ? 'failure' : 'success',
          ),
        );
        return { kind: 'value', value, readOnly: internals.tools.get(call.tool)?.readOnlyHint === true };
      } catch (error) {
        emit(event(call, target, start, now(), 'failure'));
        last = { kind: 'failed', error };
        // A caller's abort ends the call: no further fallback.
        if (call.options?.signal?.aborted || (isResilienceError(error) && error.reason === 'aborted'))
          return last;
      }
    }
    return last;
  };
}

function event(
  call: FallbackRequest,
  target: string,
  start: number,
  end: number,
  outcome: 'success' | 'failure',
): FallbackEvent {
  return {
    type: 'fallback',
    time: end,
    durationMs: end - start,
    operation: call.request.method,
    attributes: call.attributes,
    target,
    outcome,
    classification: call.cause.classification,
  };
}
