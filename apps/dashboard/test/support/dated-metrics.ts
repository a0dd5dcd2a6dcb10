import type { HrTime } from '@opentelemetry/api';
import type { MetricData, ResourceMetrics } from '@opentelemetry/sdk-metrics';

const hrTime = (ms: number): HrTime => [Math.floor(ms / 1000), (ms % 1000) * 1_000_000];

/**
 * An export's points dated on the agent's (injected) clock: the SDK dates them by its own real clock. `startMs`
 * is when the agent's series started, `timeMs` the collection.
 */
export function datedMetrics(rm: ResourceMetrics, startMs: number, timeMs: number): ResourceMetrics {
  const dated = (m: MetricData): MetricData =>
    ({
      ...m,
      dataPoints: m.dataPoints.map((p) => ({ ...p, startTime: hrTime(startMs), endTime: hrTime(timeMs) })),
    }) as MetricData;
  return {
    ...rm,
    scopeMetrics: rm.scopeMetrics.map((sm) => ({ ...sm, metrics: sm.metrics.map(dated) })),
  };
}
