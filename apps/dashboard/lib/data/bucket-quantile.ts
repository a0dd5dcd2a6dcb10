/**
 * A quantile from explicit-bucket histogram counts, as Prometheus's `histogram_quantile` computes it, so both
 * backends agree: find the bucket holding rank q*total and interpolate linearly inside it (from 0 for the first
 * bucket); a rank in the +Inf bucket answers the highest finite bound. `bounds` are the finite upper bounds,
 * ascending; `counts` has one more entry (the +Inf bucket), per bucket (not cumulative). Null without
 * observations or for q outside [0, 1].
 */
export function bucketQuantile(
  q: number,
  bounds: readonly number[],
  counts: readonly number[],
): number | null {
  const total = counts.reduce((s, c) => s + c, 0);
  if (!(total > 0) || !(q >= 0 && q <= 1)) return null;
  const rank = q * total;
  let cumulative = 0;
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i] ?? 0;
    if (cumulative + c >= rank && c > 0) {
      if (i >= bounds.length) return bounds.length > 0 ? bounds[bounds.length - 1]! : null;
      const upper = bounds[i]!;
      const lower = i === 0 ? Math.min(upper, 0) : bounds[i - 1]!;
      return lower + (upper - lower) * ((rank - cumulative) / c);
    }
    cumulative += c;
  }
  return bounds.length > 0 ? bounds[bounds.length - 1]! : null;
}
