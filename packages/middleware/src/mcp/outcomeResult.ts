import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ResilienceError } from '../errors/ResilienceError.js';

/**
 * Terminal outcomes other than a non-retryable failure that `resultOn` can turn into an `isError` result:
 * the breaker was open, the breaker's wait queue was full (`shed`), the call's deadline passed, the retry
 * budget refused a retry, every attempt failed with a retryable error (or an inner resilience layer already
 * retried it), the server asked to wait longer than `retryAfterMaxMs` (`rate_limited`), the failure may have
 * run a tool that is not safe to repeat (`not_retried_unsafe`), or a lost session or connection could not be
 * restored (`not_recovered`). Every give-up reason but `non_retryable` (see `nonRetryableAs`) and `aborted`
 * (the caller's own cancellation) has one.
 */
export const TERMINAL_OUTCOMES = [
  'circuit_open',
  'shed',
  'deadline',
  'budget_exhausted',
  'retries_exhausted',
  'rate_limited',
  'not_retried_unsafe',
  'not_recovered',
] as const;
export type TerminalOutcome = (typeof TERMINAL_OUTCOMES)[number];

/** The terminal outcome a failed call ended with, `undefined` for the others (non-retryable, aborted...). */
export function terminalOutcome(error: ResilienceError): TerminalOutcome | undefined {
  const reason = error.reason as string;
  if (
    reason === 'circuit_open' ||
    reason === 'shed' ||
    reason === 'deadline' ||
    reason === 'budget_exhausted'
  )
    return reason;
  // An inner resilience layer already retried the failure: its retries are exhausted too.
  if (reason === 'max_attempts' || reason === 'already_retried') return 'retries_exhausted';
  if (reason === 'retry_after_too_long') return 'rate_limited';
  if (reason === 'not_idempotent') return 'not_retried_unsafe';
  if (reason === 'condition_unmet') return 'not_recovered';
  return undefined;
}

const seconds = (ms: number | undefined): string | undefined =>
  ms === undefined || !Number.isFinite(ms) || ms <= 0 ? undefined : `${Math.max(1, Math.ceil(ms / 1000))} s`;

/**
 * One sentence a model can act on: what failed, whether calling again can help, and when. The server name is
 * left out on purpose (it says nothing the model can use); the tool name is kept.
 */
export function outcomeText(
  outcome: TerminalOutcome,
  error: ResilienceError,
  tool: string | undefined,
): string {
  const name = tool ? `Tool '${tool}'` : 'The tool';
  const wait = seconds(error.classification.retryAfterMs);
  const n = error.attempts;
  const tries = `${n} attempt${n === 1 ? '' : 's'}`;
  switch (outcome) {
    case 'circuit_open':
      return `${name} is unavailable: its server is failing and calls to it are paused, so calling it again ${wait ? `can only succeed after about ${wait}` : 'right away will fail the same way'}; continue without it or try later.`;
    case 'shed':
      return `${name} was not called because its server is overloaded and too many calls are already waiting; call it again ${wait ? `in about ${wait}` : 'in a few seconds'}, or continue without it.`;
    case 'deadline':
      return `${name} did not finish within its time limit (${tries}, ${error.classification.type}); calling it again with the same arguments may fail the same way, so ask for less or try later.`;
    case 'budget_exhausted':
      return `${name} failed (${error.classification.type}) and was not retried because its server is failing many calls right now; call it again ${wait ? `in about ${wait}` : 'in a few seconds'} at the earliest, or continue without it.`;
    case 'retries_exhausted':
      if (error.reason === 'already_retried')
        return `${name} failed with a temporary error (${error.classification.type}) even after being retried; calling it again ${wait ? `in about ${wait}` : 'in a few seconds'} may succeed, or continue without it.`;
      return `${name} failed ${n === 1 ? 'once' : `${n} times in a row`} with a temporary error (${error.classification.type}); calling it again ${wait ? `in about ${wait}` : 'in a few seconds'} may succeed, or continue without it.`;
    case 'rate_limited':
      return `${name} failed (${error.classification.type}) and its server asked to wait ${wait ? `about ${wait}` : 'a while'} before calling again, longer than this call may wait; call it again ${wait ? `in about ${wait}` : 'later'} at the earliest, or continue without it.`;
    case 'not_retried_unsafe':
      return `${name} failed (${error.classification.type}) after its request may already have reached the server, and was not retried because running it twice may not be safe; check whether it took effect before calling it again with the same arguments.`;
    case 'not_recovered':
      return `${name} failed because ${CONNECTION_TYPES.has(error.classification.type) ? 'the connection to its server was lost' : 'its server was not ready for it'} (${error.classification.type}) and this could not be fixed, so it was not retried; calling it again right away will likely fail the same way, so continue without it or try later.`;
  }
}

const CONNECTION_TYPES: ReadonlySet<string> = new Set(['session_expired', 'connection_closed']);

/** The `isError` result a model reads instead of an exception, for a `resultOn` outcome. */
export function outcomeResult(
  outcome: TerminalOutcome,
  error: ResilienceError,
  tool: string | undefined,
): CallToolResult {
  return { content: [{ type: 'text', text: outcomeText(outcome, error, tool) }], isError: true };
}
