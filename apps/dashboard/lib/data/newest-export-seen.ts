/**
 * Where the newest export of one instance is dated, from the sum of its counters sampled every `gridMs`
 * (`exportsFromSamples`' grid points `[t, value]`), when no interval could be measured: its newest change, or,
 * without one, the series' first sample when the series began after `from` (its first export: the collector's
 * exporter serves a series from the first export that carried it). A change or a first sample seen at grid point
 * g was scraped in (g - gridMs, g], so it is dated g - gridMs / 2, or between g - gridMs and `until` (the time
 * the samples were read at) when g is past it. Undefined when the samples show no export.
 */
export function newestExportSeen(
  points: ReadonlyArray<readonly [number, number]>,
  gridMs: number,
  until = Number.POSITIVE_INFINITY,
  from = Number.NEGATIVE_INFINITY,
): number | undefined {
  let seen: number | undefined;
  for (let i = points.length - 1; i > 0 && seen === undefined; i--) {
    if (points[i]![1] !== points[i - 1]![1]) seen = points[i]![0];
  }
  if (seen === undefined && points.length > 0 && points[0]![0] > from) seen = points[0]![0];
  return seen === undefined ? undefined : (seen - gridMs + Math.min(seen, until)) / 2;
}
