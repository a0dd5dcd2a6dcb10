import { bucketElapsed } from '@/lib/data/bucket-elapsed';
import type { CallsPoint, Series } from '@/lib/data/types';

/**
 * The calls chart's rows: rates per minute by outcome, complete buckets in the solid keys and still-filling
 * ones apart (`partial*`, dashed "so far", joined to the last complete bucket; one without data yet is a gap).
 */
export function callsChartRows(series: Series<CallsPoint>) {
  const isPartial = (t: number) => series.partialFrom !== undefined && t >= series.partialFrom;
  const firstPartial = series.points.findIndex((p) => isPartial(p.t));
  const last = series.points[series.points.length - 1]?.t ?? 0;
  return series.points.map((p, i) => {
    const partial = isPartial(p.t);
    const elapsed = bucketElapsed(series, p.t, last);
    const perMinute = elapsed > 0 ? 60_000 / elapsed : 0;
    const rates = {
      success: p.success * perMinute,
      failure: p.failure * perMinute,
      rejected: p.rejected * perMinute,
    };
    const none = { success: null, failure: null, rejected: null };
    // complete buckets are the solid areas; still-filling ones are drawn apart (dashed, "so far"), joined
    // to the last complete bucket; one without data yet (the export is due) is a gap, not a drop to 0
    const empty = p.success + p.failure + p.rejected === 0 || elapsed <= 0;
    const solid = partial ? none : rates;
    const joinsPartial = firstPartial > 0 && i === firstPartial - 1;
    const dashed = partial ? (empty ? none : rates) : joinsPartial ? rates : none;
    return {
      t: p.t,
      ...solid,
      partialSuccess: dashed.success,
      partialFailure: dashed.failure,
      partialRejected: dashed.rejected,
    };
  });
}
