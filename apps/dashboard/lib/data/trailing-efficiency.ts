import { MIN_RETRIES_FOR_EFFICIENCY } from '../format';
import type { RatioPoint } from './types';

/** How far back a chart point may reach for enough retries. */
export const TRAILING_WINDOW_MS = 5 * 60_000;

/**
 * Efficiency per chart point with its volume: each point is successful/total over the fewest trailing buckets
 * (its own first, at most TRAILING_WINDOW_MS) that hold MIN_RETRIES_FOR_EFFICIENCY retries; null when even
 * those do not (insufficient data, design §2). So a bucket with 2 retries is never a 0% or 100% point. A bucket
 * with no retry at all is a gap too: after the data stops, the line stops, not a value repeated for 5 minutes.
 */
export function trailingEfficiency(
  points: readonly RatioPoint[],
  stepMs: number,
  minRetries = MIN_RETRIES_FOR_EFFICIENCY,
): Array<{ t: number; efficiency: number | null; successful: number; total: number }> {
  const reach = Math.max(1, Math.floor(TRAILING_WINDOW_MS / stepMs));
  return points.map((p, k) => {
    if (p.total === 0) return { t: p.t, efficiency: null, successful: 0, total: 0 };
    let successful = 0;
    let total = 0;
    for (let j = k; j >= 0 && j > k - reach && total < minRetries; j--) {
      successful += points[j]!.successful;
      total += points[j]!.total;
    }
    return { t: p.t, efficiency: total >= minRetries ? successful / total : null, successful, total };
  });
}
