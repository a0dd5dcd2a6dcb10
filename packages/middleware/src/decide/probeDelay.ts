/** What `probeDelay` needs: the breaker's schedule, the outage's age, and what the endpoint's history expects. */
export interface ProbeDelayInput {
  /** Probes that failed in a row in this outage (0 when the breaker has just opened). */
  readonly failedProbes: number;
  /** How long this outage has lasted so far (0 when the breaker has just opened on a fresh outage). */
  readonly outageAgeMs: number;
  /** Calls waiting whose limits need a verdict: several keep the probe soon; fewer let it stretch with the age. */
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

/**
 * While fewer than two calls wait, the next probe comes when the outage has aged by this share (up to
 * `breakerIdleMaxBreakMs`): a recovery is seen at most a quarter of the outage's age late. Under the prior of
 * `recoveryOdds` (the longer an outage has lasted, the longer it is likely to last), each such probe has the
 * same chance, 1/5, of finding the endpoint back. Measured (docs/benchmarks.md §6: a lone agent, one outage of
 * 3 s to 2 min, 28 rows): at 1 (when the age doubles, the rule before) the defaults succeeded in fewer calls
 * than the naive loop in 17 rows, 2,238 calls in all (a 40 s outage with a 10 s deadline: 864 against 1,117);
 * at 1/2 in 17 rows, 1,523 calls; at 1/4 in 15 rows, 746 calls. The price is the probes of a young outage: a
 * server dead for 9.5 min gets 107 requests from a lone agent instead of 92 (the naive loop: 324; §5).
 */
export const AGE_SHARE = 0.25;

/**
 * How long an open breaker waits before its next probe. The soon schedule: `breakerBreakMs` doubling per failed
 * probe up to `breakerMaxBreakMs`, or, when the endpoint's past outages say when this one usually ends, then
 * (within the same bounds): calls that wait need a verdict soon. While fewer than two calls wait, the outage's
 * age stretches it to `AGE_SHARE` of the age, up to `breakerIdleMaxBreakMs` (a long outage that nobody waits for
 * costs one request per that much, and a recovery is seen at most that late: the README's breaker section gives
 * the measured trade-off of the cap). Jittered, so that many clients do not probe in step.
 */
export function probeDelay(input: ProbeDelayInput): number {
  const { breakerBreakMs: base, breakerMaxBreakMs: cap } = input;
  const soon =
    input.expectedRecoveryMs > 0
      ? Math.min(cap, Math.max(base, input.expectedRecoveryMs))
      : Math.min(cap, base * 2 ** input.failedProbes);
  const longest = Math.max(cap, input.breakerIdleMaxBreakMs);
  const share = input.waiting >= 2 ? 0 : AGE_SHARE;
  const stretched = Math.min(longest, share * Math.max(0, input.outageAgeMs));
  const delay = Math.max(soon, stretched);
  return Math.max(1, delay * (1 + input.breakerJitter * (2 * input.random() - 1)));
}
