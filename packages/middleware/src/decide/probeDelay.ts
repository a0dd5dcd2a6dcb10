/** What `probeDelay` needs: the breaker's schedule and what the endpoint's history expects. */
export interface ProbeDelayInput {
  /** Probes that failed in a row in this outage (0 when the breaker has just opened). */
  readonly failedProbes: number;
  /** How long, from now, the endpoint's past outages say this one will last; 0 when it has no idea. */
  readonly expectedRecoveryMs: number;
  /** First delay, doubling per failed probe... */
  readonly breakerBreakMs: number;
  /** ...up to this cap, which also bounds what is learned. */
  readonly breakerMaxBreakMs: number;
  /** Random spread, as a share of the delay (0.1 = ±10%). */
  readonly breakerJitter: number;
  readonly random: () => number;
}

/**
 * How long an open breaker waits before its next probe. Without history: `breakerBreakMs` doubling per failed
 * probe up to `breakerMaxBreakMs`. When the endpoint's past outages say when this one usually ends, the probe
 * goes then instead (never sooner than `breakerBreakMs`, never later than the cap): a long outage is probed
 * sparsely and a short one right when it usually ends. Jittered, so that many clients do not probe in step.
 */
export function probeDelay(input: ProbeDelayInput): number {
  const { breakerBreakMs: base, breakerMaxBreakMs: cap } = input;
  const delay =
    input.expectedRecoveryMs > 0
      ? Math.min(cap, Math.max(base, input.expectedRecoveryMs))
      : Math.min(cap, base * 2 ** input.failedProbes);
  return Math.max(1, delay * (1 + input.breakerJitter * (2 * input.random() - 1)));
}
