/** What `probeDelay` needs: the breaker's schedule, the outage's age, and what the endpoint's history expects. */
export interface ProbeDelayInput {
  /** Probes that failed in a row in this outage (0 when the breaker has just opened). */
  readonly failedProbes: number;
  /** How long this outage has lasted so far (0 when the breaker has just opened on a fresh outage). */
  readonly outageAgeMs: number;
  /** Whether calls wait whose limits need a verdict: the probe then stays soon. */
  readonly waiting: boolean;
  /** How long, from now, the endpoint's past outages say this one will last; 0 when it has no idea. */
  readonly expectedRecoveryMs: number;
  /** First delay, doubling per failed probe... */
  readonly breakerBreakMs: number;
  /** ...up to this cap, which also bounds what is learned. */
  readonly breakerMaxBreakMs: number;
  /** Longest delay, reached as the outage ages while no call waits for a verdict. */
  readonly breakerIdleMaxBreakMs: number;
  /** Random spread, as a share of the delay (0.1 = ±10%). */
  readonly breakerJitter: number;
  readonly random: () => number;
}

/** While nobody waits, the next probe comes when the outage has lasted this share longer (1: when its age doubles). */
export const IDLE_AGE_SHARE = 1;
/** While calls wait, probes come at least this share of the outage's age apart (a long outage is probed sparser). */
export const WAITING_AGE_SHARE = 0.25;

/**
 * How long an open breaker waits before its next probe. The soon schedule: `breakerBreakMs` doubling per failed
 * probe up to `breakerMaxBreakMs`, or, when the endpoint's past outages say when this one usually ends, then
 * (within the same bounds). The outage's age stretches it: while calls wait, to at least `WAITING_AGE_SHARE` of
 * the age; while nobody waits, to `IDLE_AGE_SHARE` of it, up to `breakerIdleMaxBreakMs` (a long outage that
 * nobody waits for costs one request per that much). Jittered, so that many clients do not probe in step.
 */
export function probeDelay(input: ProbeDelayInput): number {
  const { breakerBreakMs: base, breakerMaxBreakMs: cap } = input;
  const soon =
    input.expectedRecoveryMs > 0
      ? Math.min(cap, Math.max(base, input.expectedRecoveryMs))
      : Math.min(cap, base * 2 ** input.failedProbes);
  const share = input.waiting ? WAITING_AGE_SHARE : IDLE_AGE_SHARE;
  const longest = Math.max(cap, input.breakerIdleMaxBreakMs);
  const delay = Math.max(soon, Math.min(longest, share * Math.max(0, input.outageAgeMs)));
  return Math.max(1, delay * (1 + input.breakerJitter * (2 * input.random() - 1)));
}
