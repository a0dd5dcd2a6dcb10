import type { ResourceMetrics } from '../otlp/model';

/** What one export of an agent process covers: its newest point time and the interval its counts span. */
export interface ExportCadence {
  /** The newest point time of the export (epoch ms): its counts are dated there. */
  readonly exportAt: number;
  /** The time its counts cover (the export interval): the shortest span of its count points. */
  readonly exportMs: number;
  /** Without `exportMs` (only new cumulative series): when its calls began, the earliest start of its series. */
  readonly callsFrom: number;
}

/**
 * The cadence of one resource's export: a delta point covers its start to its time; a cumulative one the time
 * since its series' previous point (`prevTime`). A new cumulative series says nothing (the SDK starts it at its
 * first measurement, not at the previous export): such an export has its time, when its calls began (its
 * series' earliest start) and no interval. The shortest
 * span wins: an unchanged series' stored state may be older than its previous point (it is written again at
 * most hourly). Empty without count points (gauges only); undefined without any point (the resource sent
 * nothing: not seen).
 */
export function exportCadence(
  rm: ResourceMetrics,
  keyOf: (metric: string, scope: string, attrs: ResourceMetrics['resource']) => string,
  prevTime: (key: string) => number | undefined,
): Partial<ExportCadence> | undefined {
  if (!rm.scopes.some((sm) => sm.metrics.some((m) => m.points.length > 0))) return undefined;
  let exportAt = Number.NEGATIVE_INFINITY;
  let callsFrom = Number.POSITIVE_INFINITY;
  const spans: number[] = [];
  for (const sm of rm.scopes) {
    for (const m of sm.metrics) {
      if (m.type === 'gauge') continue;
      for (const p of m.points) {
        const from = m.temporality === 1 ? p.startMs : prevTime(keyOf(m.name, sm.scope, p.attributes));
        if (from !== undefined && p.timeMs > from) spans.push(p.timeMs - from);
        if (p.timeMs > exportAt) exportAt = p.timeMs;
        if (p.startMs > 0 && p.startMs < callsFrom) callsFrom = p.startMs;
      }
    }
  }
  if (!Number.isFinite(exportAt)) return {};
  if (spans.length > 0) return { exportAt, exportMs: Math.min(...spans) };
  // only new cumulative series: where the export is and when its calls began, its interval not known
  return Number.isFinite(callsFrom) && callsFrom <= exportAt ? { exportAt, callsFrom } : { exportAt };
}
