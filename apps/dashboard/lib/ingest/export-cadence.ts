import type { ResourceMetrics } from '../otlp/model';

/** What one export of an agent process covers: its newest point time and the interval its counts span. */
export interface ExportCadence {
  /** The newest point time of the export (epoch ms): its counts are dated there. */
  readonly exportAt: number;
  /** The time its counts cover (the export interval): the shortest positive span of its count points. */
  readonly exportMs: number;
}

/**
 * The cadence of one resource's export: a delta point covers its start to its time; a cumulative one the time
 * since its series' previous point (`prevTime`), or since its start for a new series. The shortest span wins
 * (a new series' start is the process's, older than the interval). Empty without count points; undefined
 * without any point (the resource sent nothing: not seen).
 */
export function exportCadence(
  rm: ResourceMetrics,
  keyOf: (metric: string, scope: string, attrs: ResourceMetrics['resource']) => string,
  prevTime: (key: string) => number | undefined,
): Partial<ExportCadence> | undefined {
  if (!rm.scopes.some((sm) => sm.metrics.some((m) => m.points.length > 0))) return undefined;
  let exportAt = Number.NEGATIVE_INFINITY;
  let exportMs = Number.POSITIVE_INFINITY;
  for (const sm of rm.scopes) {
    for (const m of sm.metrics) {
      if (m.type === 'gauge') continue;
      for (const p of m.points) {
        const from =
          m.temporality === 1 ? p.startMs : (prevTime(keyOf(m.name, sm.scope, p.attributes)) ?? p.startMs);
        const span = p.timeMs - from;
        if (span > 0 && span < exportMs) exportMs = span;
        if (p.timeMs > exportAt) exportAt = p.timeMs;
      }
    }
  }
  return Number.isFinite(exportMs) ? { exportAt, exportMs } : {};
}
