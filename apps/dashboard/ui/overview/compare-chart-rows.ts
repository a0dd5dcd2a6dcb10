import { bucketElapsed } from '@/lib/data/bucket-elapsed';
import { trailingEfficiency } from '@/lib/data/trailing-efficiency';
import type { CompareGroup } from '@/lib/data/types';

/**
 * The compare chart's rows, one value per group and bucket: complete buckets in `g<i>` (solid lines),
 * still-filling ones in `p<i>` (dashed: "so far"), joined to the last complete bucket, as on the calls chart.
 */
export function compareChartRows(groups: readonly CompareGroup[], metric: 'efficiency' | 'calls') {
  const base = groups[0]!.calls;
  const step = base.step;
  const partialFrom = base.partialFrom;
  const isPartial = (t: number) => partialFrom !== undefined && t >= partialFrom;
  const firstPartial = base.points.findIndex((p) => isPartial(p.t));
  const trailing = groups.map((g) => trailingEfficiency(g.efficiency.points, step));
  // Complete buckets are the solid lines (`g<i>`); still-filling ones are drawn apart (`p<i>`, dashed: "so far"),
  // joined to the last complete bucket, as on the calls chart.
  const last = base.points[base.points.length - 1]?.t ?? 0;
  return base.points.map((p, k) => {
    const row: Record<string, number | null> = { t: p.t };
    const partial = isPartial(p.t);
    const joinsPartial = firstPartial > 0 && k === firstPartial - 1;
    for (const [i, g] of groups.entries()) {
      let value: number | null;
      if (metric === 'calls') {
        const elapsed = bucketElapsed(g.calls, p.t, last);
        const c = g.calls.points[k];
        const n = c ? c.success + c.failure + c.rejected : 0;
        // a still-filling bucket without data yet, or whose counts cover a time not known, is a gap, not a drop
        value = partial && (n === 0 || elapsed <= 0) ? null : elapsed > 0 ? (n * 60_000) / elapsed : 0;
      } else {
        value = trailing[i]![k]?.efficiency ?? null;
      }
      row[`g${i}`] = partial ? null : value;
      row[`p${i}`] = partial || joinsPartial ? value : null;
    }
    return row;
  });
}
