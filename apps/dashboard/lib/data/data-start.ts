import type { Annotation, CallsPoint, KeyedPoint, RatioPoint, Series } from './types';

/** Data that begins within this share of the range after its start counts as starting with it. */
const NEAR_START = 0.05;

const firstWith = <P extends { readonly t: number }>(series: Series<P> | undefined, has: (p: P) => boolean) =>
  series?.points.find(has)?.t;

/**
 * Where a page's time charts start: the earliest bucket with data on any of them (calls, retries, failed
 * attempts) or holding a mark, on the grid of the calls chart (its first bucket and step). Undefined without
 * data or marks (the charts show the whole range, empty), and that first bucket when the data reaches back to
 * it: charts draw nothing before the first data (no zeros, no state), so a fresh agent on a long range fills
 * the chart, not its right edge. Data within the range's first 5% counts as from its start.
 */
export function chartsStart(
  charts: {
    readonly calls: Series<CallsPoint>;
    readonly efficiency?: Series<RatioPoint>;
    readonly errors?: Series<KeyedPoint>;
  },
  annotations: readonly Annotation[],
): number | undefined {
  const grid = charts.calls;
  const origin = grid.points[0]?.t;
  if (origin === undefined) return undefined;
  const known = [
    firstWith(grid, (p) => p.success + p.failure + p.rejected > 0),
    firstWith(charts.efficiency, (p) => p.total > 0),
    firstWith(charts.errors, (p) => Object.values(p.values).some((v) => v > 0)),
    ...annotations.map((a) => origin + Math.floor((a.t - origin) / grid.step) * grid.step),
  ].filter((t): t is number => t !== undefined && Number.isFinite(t));
  if (known.length === 0) return undefined;
  const start = Math.max(origin, Math.min(...known));
  // data from (nearly) the range's start fills it already: the whole range, no "Data since" note
  return start - origin < NEAR_START * grid.points.length * grid.step ? origin : start;
}
