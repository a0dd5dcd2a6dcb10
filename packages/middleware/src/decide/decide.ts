import type { Classification } from '../classify/Classification.js';
import type { Decision } from './Decision.js';
import { NAIVE_RETRIES_MS } from './naiveRetryAt.js';
import { naiveRetryBy } from './naiveRetryBy.js';

/** Everything `decide` needs, gathered by the loop. */
export interface DecideInput {
  readonly classification: Classification;
  /** The attempt that just failed (1-based). */
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly idempotent: boolean;
  readonly aborted: boolean;
  readonly now: number;
  /** Epoch milliseconds of the call's deadline, if any. */
  readonly deadline: number | undefined;
  /** The jittered exponential backoff for the next retry. */
  readonly backoffMs: number;
  /** The adaptive floor: how long the endpoint's failures usually take to recover from now. */
  readonly expectedRecoveryMs: number;
  /**
   * A call without a deadline: when it started and how long it may last (its default limit); the adaptive floor
   * then ends at a naive loop's retry that comes at most `NAIVE_SNAP_MS` before it (`naiveFloor`). Absent: the
   * floor as it is.
   */
  readonly naiveLoop?: { readonly start: number; readonly spanMs: number } | undefined;
  /** A successful attempt's usual duration on this endpoint. */
  readonly expectedLatencyMs: number;
  /** What the endpoint announced (`Retry-After`) still to wait, from now. */
  readonly endpointRetryAfterMs: number;
  readonly retryAfterMarginMs: number;
  readonly retryAfterMaxMs: number;
  /** Whether the caller gave a recovery for this failure type. */
  readonly canRecover: boolean;
  /** How long until the endpoint's breaker probes again if this call waits for it; 0 when it admits. */
  readonly breakerOpenMs: number;
  /** Whether a retry may wait at the breaker's gate for its next probe (`breakerWait`) instead of failing. */
  readonly breakerWait: boolean;
  /** Whether recovery before the call's limit is likely enough to wait at the open breaker (`recoveryOdds`). */
  readonly recoveryLikely: boolean;
  readonly budgetAvailable: boolean;
}

/**
 * The retry policy, as a pure function: what to do after a failed attempt. Checks, in order: abort, class,
 * attempts, idempotency, the condition of a `conditional` failure, `Retry-After` (a floor, with a ceiling),
 * the breaker (a retry waits at its gate for the next probe when recovery before its limit is likely and the
 * deadline reaches past the probe, else the call stops with `circuit_open`; fail-fast: it stops whenever the
 * breaker is still open after the delay), the deadline, the budget.
 */
export function decide(input: DecideInput): Decision {
  const c = input.classification;
  if (input.aborted || c.type === 'cancelled') return { kind: 'give_up', reason: 'aborted' };
  if (c.class === 'non_retryable') return { kind: 'give_up', reason: 'non_retryable' };
  if (c.source === 'resilience_error') return { kind: 'give_up', reason: 'already_retried' };
  if (input.attempt >= input.maxAttempts) return { kind: 'give_up', reason: 'max_attempts' };
  if (c.execution !== 'not_sent' && !input.idempotent) return { kind: 'give_up', reason: 'not_idempotent' };

  const retryAfterMs = Math.max(c.retryAfterMs ?? 0, input.endpointRetryAfterMs);
  if (retryAfterMs > input.retryAfterMaxMs) return { kind: 'give_up', reason: 'retry_after_too_long' };

  let kind: 'retry' | 'wait' | 'reconnect' = 'retry';
  let delayMs = Math.max(input.backoffMs, adaptiveFloor(input));
  if (c.class === 'conditional') {
    if (c.type === 'rate_limited') kind = 'wait';
    else if (input.canRecover) kind = 'reconnect';
    else return { kind: 'give_up', reason: 'condition_unmet' };
    if (c.type === 'session_expired') delayMs = 0;
  }
  if (retryAfterMs > 0) delayMs = Math.max(delayMs, retryAfterMs + input.retryAfterMarginMs);

  if (input.breakerOpenMs > delayMs) {
    const cannotWait =
      !input.breakerWait ||
      !input.recoveryLikely ||
      (input.deadline !== undefined &&
        input.now + input.breakerOpenMs + input.expectedLatencyMs > input.deadline);
    if (cannotWait) return { kind: 'circuit_open', retryAfterMs: input.breakerOpenMs };
  }
  if (input.deadline !== undefined && input.now + delayMs + input.expectedLatencyMs > input.deadline) {
    return { kind: 'give_up', reason: 'deadline' };
  }
  if (!input.budgetAvailable) return { kind: 'budget_exhausted' };
  return { kind, delayMs };
}

/**
 * The adaptive floor: wait until the endpoint usually recovers. When that is past the deadline but recovery before
 * it is still likely (`recoveryLikely`: this outage may be shorter than the usual one), the retry goes at the last
 * moment that still fits instead of giving up now. Without a deadline, `naiveFloor`.
 */
function adaptiveFloor(input: DecideInput): number {
  if (input.deadline === undefined) return naiveFloor(input);
  if (!input.recoveryLikely) return input.expectedRecoveryMs;
  const room = input.deadline - input.now - input.expectedLatencyMs;
  return Math.max(0, Math.min(input.expectedRecoveryMs, room));
}

/**
 * How far before the usual recovery a naive loop's retry may be for the adaptive floor of a call without a deadline
 * to end there instead: half the loop's first wait (0.5 s). Measured (bench, lone agent, 3 s blips, no deadline,
 * seeds 1-12; calls completed / requests into the down endpoint, the naive loop 1,941 / 210): no rounding 1,934 /
 * 182; 0.5 s 1,947 / 182; 1 s 1,952 / 185; 1.5 s 1,950 / 193; 2-3 s 1,949 / 203; with no bound the same, and the
 * 20 s outages also get a failed request more per outage (141 → 153, the loop's 120). Above 0.5 s a usual recovery
 * learnt exactly is cut short too (2 s learnt, the loop's +1 s retry: a failed request more).
 */
const NAIVE_SNAP_MS = NAIVE_RETRIES_MS[0]! / 2;

/**
 * The adaptive floor of a call without a deadline (`naiveLoop`): the usual recovery is learned from streaks that end
 * at a retry's success, so it runs a little past a failure's end; when a naive loop's retry comes at most
 * `NAIVE_SNAP_MS` before it (`naiveRetryBy`), the retry goes then, and sees the end of a blip when the loop would.
 */
function naiveFloor(input: DecideInput): number {
  const loop = input.naiveLoop;
  if (loop === undefined || input.expectedRecoveryMs <= 0) return input.expectedRecoveryMs;
  const floorAt = input.now + input.expectedRecoveryMs;
  const at = naiveRetryBy(loop.start, loop.spanMs, input.now, floorAt);
  return at === undefined || floorAt - at > NAIVE_SNAP_MS ? input.expectedRecoveryMs : at - input.now;
}
