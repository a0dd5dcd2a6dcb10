/*
 * The statistics of the Experiments page and of the canary alert: Wilson intervals, the two-proportion z-test
 * and the sample size it needs. Pure functions of counts.
 */

/** z for a two-sided 95% interval / test. */
export const Z95 = 1.959963984540054;
/** z for 80% power. */
export const Z_POWER80 = 0.8416212335729143;

/** Standard normal CDF (Abramowitz & Stegun 7.1.26 through erf; absolute error < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + y) : 0.5 * (1 - y);
}

export interface Interval {
  readonly rate: number;
  readonly low: number;
  readonly high: number;
}

/** The Wilson score interval of `successes` out of `total` (null without data). */
export function wilson(successes: number, total: number, z = Z95): Interval | null {
  if (total <= 0) return null;
  const p = successes / total;
  const z2 = z * z;
  const denom = 1 + z2 / total;
  const centre = (p + z2 / (2 * total)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / total + z2 / (4 * total * total))) / denom;
  return { rate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export interface TwoProportionTest {
  /** Candidate rate minus control rate. */
  readonly diff: number;
  readonly z: number;
  /** Two-sided p-value. */
  readonly p: number;
  readonly significant: boolean;
}

/**
 * The pooled two-proportion z-test of candidate (x1/n1) against control (x2/n2), two-sided at `alpha`.
 * null when either arm is empty or both rates are 0 or 1 (no variance: nothing to test).
 */
export function twoProportionTest(
  x1: number,
  n1: number,
  x2: number,
  n2: number,
  alpha = 0.05,
): TwoProportionTest | null {
  if (n1 <= 0 || n2 <= 0) return null;
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const pooled = (x1 + x2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  if (se === 0) return null;
  const z = (p1 - p2) / se;
  const p = 2 * (1 - normalCdf(Math.abs(z)));
  return { diff: p1 - p2, z, p, significant: p < alpha };
}

/**
 * Observations per arm a two-sided test at 5% needs to detect the difference between `p1` and `p2` with 80%
 * power (the standard formula for two proportions); null when they are equal.
 */
export function sampleSizePerArm(p1: number, p2: number): number | null {
  const d = Math.abs(p1 - p2);
  if (d === 0 || !Number.isFinite(d)) return null;
  const pBar = (p1 + p2) / 2;
  const a = Z95 * Math.sqrt(2 * pBar * (1 - pBar));
  const b = Z_POWER80 * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2));
  return Math.ceil(((a + b) * (a + b)) / (d * d));
}

/**
 * The quantile `q` of a cumulative histogram, as Prometheus's `histogram_quantile` computes it: linear within
 * the bucket holding the rank, the lower bound of the first bucket being 0, and the largest finite bound when
 * the rank falls in the +Inf bucket. null without observations.
 */
export function histogramQuantile(
  q: number,
  buckets: ReadonlyArray<{ le: number; count: number }>,
): number | null {
  const sorted = [...buckets].sort((a, b) => a.le - b.le);
  const total = sorted.at(-1)?.count ?? 0;
  if (total <= 0) return null;
  const rank = q * total;
  let prevLe = 0;
  let prevCount = 0;
  for (const b of sorted) {
    if (b.count >= rank) {
      if (b.le === Number.POSITIVE_INFINITY) return prevLe;
      if (b.count === prevCount) return b.le;
      return prevLe + ((b.le - prevLe) * (rank - prevCount)) / (b.count - prevCount);
    }
    prevLe = b.le;
    prevCount = b.count;
  }
  return prevLe;
}
