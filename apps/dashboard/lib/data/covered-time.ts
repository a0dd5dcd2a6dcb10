/** An agent process's newest metrics export: its point time and the interval its counts cover. */
export interface InstanceExport {
  readonly service: string;
  readonly exportAt: number;
  /** 0 when its interval is not known (an instance seen in too few exports): `exportAt` is its newest export. */
  readonly exportMs: number;
  /** With `exportMs` 0, when known: its count holds only calls made from then on (a first cumulative export). */
  readonly callsFrom?: number;
  /** Its interval was the same at least twice in a row: a cadence, not one gap (`dataInterval`). */
  readonly steady?: boolean;
}

/** How many exports of `e` are dated in [from, to), taking it to export every `exportMs`, the newest at `exportAt`. */
function exportsIn(from: number, to: number, e: InstanceExport): number {
  const behind = e.exportAt < to ? 0 : Math.floor((e.exportAt - to) / e.exportMs) + 1;
  const newest = e.exportAt - behind * e.exportMs;
  return newest < from ? 0 : Math.floor((newest - from) / e.exportMs) + 1;
}

/**
 * The time the counts of a bucket [from, to) cover, per instance: a count is dated by its export, which carries
 * the whole interval before it, so an instance that exported n times in the bucket covers n intervals (longer or
 * shorter than the time since the bucket began). The mean over the instances that still export (one whose
 * next export was due more than `lagMs` before the bucket began has stopped): one not yet in covers nothing
 * and has no counts, so the fleet's rate is count / this (exact when the instances' rates are equal).
 * An instance whose interval is not known and whose calls all began in the bucket (`callsFrom`) covers the
 * bucket so far: its calls were made in it. Undefined when no instance still exports; null when an instance
 * whose interval is not known exported in the bucket calls that may have begun before it: its count is in, the
 * time it covers is not known (the bucket is a gap, never a guess).
 */
export function coveredMs(
  from: number,
  to: number,
  exports: readonly InstanceExport[],
  lagMs: number,
): number | null | undefined {
  const unknown = exports.filter((e) => e.exportMs === 0 && e.exportAt >= from);
  if (unknown.some((e) => e.callsFrom === undefined || e.callsFrom < from)) return null;
  const live = exports.filter((e) => e.exportMs > 0 && e.exportAt + e.exportMs + lagMs >= from);
  if (live.length + unknown.length === 0) return undefined;
  const steady = live.reduce((s, e) => s + exportsIn(from, to, e) * e.exportMs, 0);
  return (steady + unknown.length * (to - from)) / (live.length + unknown.length);
}
