import { PRIOR_WEIGHT, type RecoveryOddsInput, recoveryOdds } from './recoveryOdds.js';

/**
 * How long from now a call that waits for a recovery keeps odds of at least `least`: its odds (`recoveryOdds`)
 * judged again at every moment, with the outage older and the time left shorter by as much. They only fall (the
 * limit stays where it is while the outage ages; a past outage shorter than the age stops counting), so the
 * answer is the one moment they cross `least`: 0 when they are already below it, `withinMs` when they never fall
 * below it before the limit (`least` 0). Pure.
 */
export function oddsFallBelowMs(input: RecoveryOddsInput, least: number): number {
  const start = Math.max(0, input.outageAgeMs);
  const w = Math.max(0, input.withinMs);
  if (least <= 0) return w;
  if (w === 0 || recoveryOdds(input) < least) return 0;
  const end = start + w; // the limit, as an outage age
  // between two past outages' ends the odds fall linearly; at each end they drop (that outage stops counting)
  const ends = input.pastOutagesMs.filter((r) => r > start && r < end).sort((x, y) => x - y);
  let from = start;
  for (const next of [...ends, end]) {
    const at = crossing(input.pastOutagesMs, from, end, least);
    if (at < next) return Math.max(from, at) - start;
    from = next;
  }
  return w;
}

/**
 * Where, over ages from `from` on (no past outage ending before the next breakpoint), the odds of recovery by age
 * `end` reach `least`: they are `(ended + PRIOR_WEIGHT * (end - age) / end) / (longer + PRIOR_WEIGHT)`.
 */
function crossing(pastOutagesMs: readonly number[], from: number, end: number, least: number): number {
  let longer = 0;
  let ended = 0;
  for (const r of pastOutagesMs) {
    if (r <= from) continue;
    longer++;
    if (r <= end) ended++;
  }
  return end * (1 - (least * (longer + PRIOR_WEIGHT) - ended) / PRIOR_WEIGHT);
}
