/** What the samples of one instance's counters say of its exports (`PrometheusPrimitives.instanceExports`). */
export interface SampledExports {
  /** Where its newest export is dated, carried forward by its interval while its series are still sampled. */
  readonly exportAt: number;
  /** Its export interval: the spacing its changes keep (at least twice). */
  readonly exportMs: number;
  /** Always: the interval was seen at least twice. */
  readonly steady: true;
}

/** The change spacing seen most often, at least twice (the shorter on a tie); undefined without one. */
function commonSpacing(changes: readonly number[]): number | undefined {
  const seen = new Map<number, number>();
  for (let i = 1; i < changes.length; i++) {
    const d = changes[i]! - changes[i - 1]!;
    seen.set(d, (seen.get(d) ?? 0) + 1);
  }
  let best: { d: number; n: number } | undefined;
  for (const [d, n] of seen) {
    if (n >= 2 && (!best || n > best.n || (n === best.n && d < best.d))) best = { d, n };
  }
  return best?.d;
}

/**
 * The exports of one instance, from the sum of its counters sampled every `gridMs` (epoch-aligned grid points
 * `[t, value]`). The collector's prometheus exporter serves the last value an export pushed, without a timestamp
 * (`send_timestamps` is off by default), so each scrape is stamped by Prometheus and the value changes once per
 * export: its interval is the spacing the changes keep. A change first seen at grid point g was scraped in
 * (g - gridMs, g], so it is dated g - gridMs / 2, inside the bucket whose count holds it whenever bucket edges
 * are grid points (a grid point past `until`, the time the samples were read at, stands for a scrape up
 * to `until`). An instance without new calls still exports (unchanged values): its newest export is carried
 * forward by whole intervals up to its last sample. Undefined when no spacing was seen twice (a pull exporter
 * scraped directly changes at scrapes: its interval is the scrape's).
 */
export function exportsFromSamples(
  points: ReadonlyArray<readonly [number, number]>,
  gridMs: number,
  until = Number.POSITIVE_INFINITY,
): SampledExports | undefined {
  const changes: number[] = [];
  for (let i = 1; i < points.length; i++) {
    if (points[i]![1] !== points[i - 1]![1]) changes.push(points[i]![0]);
  }
  const exportMs = commonSpacing(changes);
  if (exportMs === undefined) return undefined;
  const newest = changes.at(-1)!;
  const lastSampled = points.at(-1)![0];
  const carried = newest + Math.floor((lastSampled - newest) / exportMs) * exportMs;
  // scraped in (carried - gridMs, carried], or up to `until` when the grid point is past it
  return { exportAt: (carried - gridMs + Math.min(carried, until)) / 2, exportMs, steady: true };
}
