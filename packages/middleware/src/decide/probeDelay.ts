/** What `probeDelay` needs: the breaker's schedule, the outage's age, and what the endpoint's history expects. */
export interface ProbeDelayInput {
  /** Probes that failed in a row in this outage (0 when the breaker has just opened). */
  readonly failedProbes: number;
  /** How long this outage has lasted so far (0 when the breaker has just opened on a fresh outage). */
  readonly outageAgeMs: number;
  /** Calls waiting whose limits need a verdict: several keep the probe soon; a lone one lets it stretch less. */
  readonly waiting: number;
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
/**
 * While one call waits alone, probes come at least this share of the outage's age apart. Measured (bench, lone
 * agent, 20 s outages, 10 s deadline): at 1 the success falls below the naive loop's (95.8% vs 97.6%); at 0.5 it is
 * 98.1%. Sparser would save requests only early in an outage (a dead server: 93 → 85 of the naive loop's 324).
 */
export const LONE_AGE_SHARE = 0.5;

/**
 * How long an open breaker waits before its next probe. The soon schedule: `breakerBreakMs` doubling per failed
 * probe up to `breakerMaxBreakMs`, or, when the endpoint's past outages say when this one usually ends, then
 * (within the same bounds): calls that wait need a verdict soon. The outage's age stretches it, up to
 * `breakerIdleMaxBreakMs`: to `IDLE_AGE_SHARE` of the age while nobody waits (a long outage that nobody waits for
 * costs one request per that much, and a recovery is seen at most that late: the README's breaker section gives
 * the measured trade-off of the cap), to `LONE_AGE_SHARE` of it while one call waits alone (sparse enough, still
 * soon enough for its deadline). Jittered, so that many clients do not probe in step.
 */
export function probeDelay(input: ProbeDelayInput): number {
  const { breakerBreakMs: base, breakerMaxBreakMs: cap } = input;
  const soon =
    input.expectedRecoveryMs > 0
      ? Math.min(cap, Math.max(base, input.expectedRecoveryMs))
      : Math.min(cap, base * 2 ** input.failedProbes);
  const longest = Math.max(cap, input.breakerIdleMaxBreakMs);
  const share = input.waiting >= 2 ? 0 : input.waiting === 1 ? LONE_AGE_SHARE : IDLE_AGE_SHARE;
  const stretched = Math.min(longest, share * Math.max(0, input.outageAgeMs));
  const delay = Math.max(soon, stretched);
  return Math.max(1, delay * (1 + input.breakerJitter * (2 * input.random() - 1)));
}
