/** What `recoveryOdds` needs: this outage's age, the time a call can still use, the endpoint's past outages. */
export interface RecoveryOddsInput {
  /** How long this outage has lasted so far (from its first unhealthy failure). */
  readonly outageAgeMs: number;
  /** How long, from now, a recovery is still of use to the call (its limit minus now). */
  readonly withinMs: number;
  /** How long this endpoint's past outages lasted (most recent last; any order). */
  readonly pastOutagesMs: readonly number[];
}

/** How much the prior weighs against the endpoint's own past outages, in outages. */
export const PRIOR_WEIGHT = 2;

/**
 * The chance that an outage `outageAgeMs` old ends within `withinMs`. Prior (no history): a heavy-tailed
 * (Lindy, Pareto with shape 1) outage, whose odds are `w / (a + w)`: the longer it has lasted, the longer it is
 * likely to last. With history: of the past outages that lasted longer than this one so far, the share that
 * ended within `withinMs` more, blended with the prior weighing `PRIOR_WEIGHT` outages. Pure; in [0, 1].
 */
export function recoveryOdds(input: RecoveryOddsInput): number {
  const a = Math.max(0, input.outageAgeMs);
  const w = Math.max(0, input.withinMs);
  if (w === 0) return 0;
  const prior = w / (a + w);
  let longer = 0;
  let ended = 0;
  for (const r of input.pastOutagesMs) {
    if (r <= a) continue;
    longer++;
    if (r <= a + w) ended++;
  }
  return (ended + PRIOR_WEIGHT * prior) / (longer + PRIOR_WEIGHT);
}
