import { ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME } from '@mcp-resilience/middleware/semconv';
import type { Attrs } from '../otlp/model';
import type { SeriesState } from './delta';
import type { LabelName } from './label-limiter';
import type { InstanceSeen } from './records';
import type { TimeBounds } from './time-bounds';

/** What the mapping asks of the store: series states, label admission, and when the store was created. */
export interface IngestContext {
  readonly bounds: TimeBounds;
  /** Cumulative series that started before this are baselined (their history predates the store). */
  readonly baselineBefore: number;
  seriesState(key: string): SeriesState | undefined;
  /**
   * New cumulative series the store can still track (`OTLP_MAX_CUMULATIVE_SERIES` minus those it tracks):
   * points of further new series are refused; series already tracked keep working.
   */
  readonly seriesRoom: number;
  /** The cap itself, for the refusal's reason. */
  readonly maxSeries: number;
  /** Bytes new cumulative series may still take (`OTLP_MAX_CUMULATIVE_SERIES_BYTES` minus those taken). */
  readonly seriesBytesRoom: number;
  readonly maxSeriesBytes: number;
  label(name: LabelName, value: string): string;
}

/**
 * An attribute value as text, for every AnyValue shape and without calling anything of the value's own: a kvlist
 * (an object without prototype, whose keys may be `toString` or `valueOf`) or an array becomes its JSON.
 */
export const text = (v: unknown): string => {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'object') return JSON.stringify(v) ?? '';
  return '';
};

export function stableKey(attrs: Attrs): string {
  const keys = Object.keys(attrs).sort();
  let out = '';
  for (const k of keys) out += `${k}\u0001${JSON.stringify(attrs[k])}\u0002`;
  return out;
}

/** The agent process a resource names (service.name, service.instance.id), label-capped. */
export const resourceIdentity = (resource: Attrs, ctx: IngestContext): InstanceSeen => ({
  service: ctx.label('service', text(resource[ATTR_SERVICE_NAME]) || 'unknown_service'),
  instance: ctx.label('instance', text(resource[ATTR_SERVICE_INSTANCE_ID])),
});
