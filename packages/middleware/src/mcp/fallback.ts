import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallOptions } from '../call/CallOptions.js';
import { isResilienceError, type ResilienceError } from '../errors/ResilienceError.js';
import { callAttributes } from '../record/callAttributes.js';
import type { FallbackEvent } from '../record/ResilienceEvent.js';
import { internalsOf } from './internals.js';
import type { RequestArgs } from './sdkLine.js';
import type { CallToolResult } from './ToolResultError.js';

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

export interface FallbackRequest {
  readonly request: { method: string; params?: Record<string, unknown> };
  /** The arguments `request()` was called with (result schema, SDK request options). */
  readonly sdkArgs: RequestArgs;
  readonly tool: string;
  readonly primary: string;
  /** The primary call's options: its context (variant) and attributes, for the fallback call and event. */
  readonly options: CallOptions;
  readonly cause: ResilienceError;
}

/**
 * Sends failed `tools/call`s to the next fallback server that lists the tool (checked against its `tools/list`,
 * listed again after `notifications/tools/list_changed`), in order. Each fallback is a `withResilience` client
 * of its own (its own breaker, budget and retries), made by `wrap` on first use; its call keeps the primary's
 * variant and caller and says where it was routed from (`routedFrom`).
 */
export function fallbackRouter(
  targets: readonly FallbackTarget[],
  wrap: (client: Client, server: string) => Client,
  emit: (event: FallbackEvent) => void,
  now: () => number,
) {
  const clientAt = fallbackClients(targets, wrap);
  return async function route(call: FallbackRequest): Promise<FallbackOutcome> {
    let last: FallbackOutcome = { kind: 'none' };
    const signal = call.sdkArgs.options?.signal;
    const { variant, caller } = call.options;
    const context = {
      routedFrom: { server: call.primary },
      ...(variant === undefined ? {} : { variant }),
      ...(caller === undefined ? {} : { caller }),
    };
    for (let index = 0; index < targets.length; index++) {
      const tools = listedTools(targets[index]);
      if (tools !== undefined && !tools.includes(call.tool)) continue;
      const internals = clientAt(index, call.primary);
      if (!internals) continue;
      if (internals.tools.needsRefresh(now())) await internals.refreshTools(signal);
      if (internals.tools.get(call.tool) === undefined) continue;
      const start = now();
      const target = internals.server();
      try {
        const value = await internals.request(call.request, call.sdkArgs, context);
        const failedToo = (value as CallToolResult | undefined)?.isError === true;
        emit(event(call, target, start, now(), failedToo ? 'failure' : 'success'));
        return { kind: 'value', value, readOnly: internals.tools.get(call.tool)?.readOnlyHint === true };
      } catch (error) {
        emit(event(call, target, start, now(), 'failure'));
        last = { kind: 'failed', error };
        // A caller's abort ends the call: no further fallback.
        if (signal?.aborted || (isResilienceError(error) && error.reason === 'aborted')) return last;
      }
    }
    return last;
  };
}

const listedTools = (target: FallbackTarget | undefined) =>
  target === undefined || isClient(target) ? undefined : target.tools;

/** The fallbacks' `withResilience` clients (their internals), each made on first use once it is connected. */
function fallbackClients(
  targets: readonly FallbackTarget[],
  wrap: (client: Client, server: string) => Client,
): (index: number, primary: string) => ReturnType<typeof internalsOf> {
  const wrapped = new Map<number, Client>();
  return (index, primary) => {
    const existing = wrapped.get(index);
    if (existing) return internalsOf(existing);
    const target = targets[index] as FallbackTarget;
    const client = isClient(target) ? target : target.client;
    if (internalsOf(client)) {
      wrapped.set(index, client);
      return internalsOf(client);
    }
    const given = isClient(target) ? undefined : target.server;
    const announced = client.getServerVersion()?.name;
    if (given === undefined && announced === undefined) return undefined; // not connected yet
    let name = given ?? (announced as string);
    if (name === primary) name = `${name}#${index + 1}`;
    const made = wrap(client, name);
    wrapped.set(index, made);
    return internalsOf(made);
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
    attributes: callAttributes(call.options),
    target,
    outcome,
    classification: call.cause.classification,
  };
}
