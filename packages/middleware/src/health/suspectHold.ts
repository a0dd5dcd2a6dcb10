import type { BreakerState } from '../decide/BreakerState.js';

/** Failed attempts in a row (of any calls) from which a retry waits for a verdict before it is sent. */
export const SUSPECT_FAILURES = 2;

/** What the hold looks at. */
export interface SuspectInput {
  readonly state: BreakerState;
  readonly consecutiveFailures: number;
  /** The call whose attempt failed last. */
  readonly lastFailedCall: number | undefined;
  readonly rampRunning: boolean;
  /** The call whose retry it is. */
  readonly callId: number;
}

/**
 * Whether a retry is held because the endpoint looks down before its breaker opens: closed, no ramp running,
 * the last `SUSPECT_FAILURES` attempts all failed, the last of them another call's (a lone call's retries are
 * never held: nobody else would bring the verdict). Pure.
 */
export function looksDown(input: SuspectInput): boolean {
  return (
    input.state === 'closed' &&
    !input.rampRunning &&
    input.consecutiveFailures >= SUSPECT_FAILURES &&
    input.lastFailedCall !== input.callId
  );
}
