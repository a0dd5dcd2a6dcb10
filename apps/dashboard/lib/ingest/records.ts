import type { SeriesState } from './delta';

/*
 * The domain records the ingest makes of OTLP requests (plain data): what the store writes, in one transaction.
 * Label values in them are already length-capped and cardinality-capped (`_OTHER`).
 */

/** The labels of a pre-aggregated fact (empty string: absent). */
export interface DimLabels {
  readonly service: string;
  readonly server: string;
  readonly method: string;
  readonly tool: string;
  readonly outcome: string;
  readonly errorClass: string;
  readonly errorType: string;
  /** `mcp.resilience.variant`. */
  readonly variant: string;
  /** Call-duration bucket facts: the bucket's lower bound ('' for the first) and upper bound (`+Inf` last). */
  readonly bucketLower: string;
  readonly bucketLe: string;
  /** Shadow disagreement facts: the shadow classifier's class and type. */
  readonly shadowClass: string;
  readonly shadowType: string;
  /** What has no column: breaker transitions' `from>to`, the waiting level's `service.instance.id`. */
  readonly extra: string;
}

/** One delta of a contract metric at a time: `value` = sum of deltas (histograms: sum), `count` = observations. */
export interface FactDelta {
  readonly metric: number;
  readonly timeMs: number;
  readonly labels: DimLabels;
  readonly value: number;
  readonly count: number;
}

/** The new state of a cumulative series (the store persists it when it changed). */
export interface SeriesUpdate {
  readonly key: string;
  readonly state: SeriesState;
}

/** A breaker state seen at `at`: from the state gauge, or from a transition event (then `transition` is set). */
export interface BreakerObservation {
  readonly service: string;
  readonly instance: string;
  readonly server: string;
  readonly tool: string;
  readonly state: string;
  readonly at: number;
  readonly transition?: { readonly from: string; readonly reason: string };
}

export interface InstanceSeen {
  readonly service: string;
  readonly instance: string;
  /** Metrics only: the newest point time of the export and the interval its counts cover (`export-cadence.ts`). */
  readonly exportAt?: number;
  readonly exportMs?: number;
  /** An export without an interval (only new cumulative series): the earliest start of its series. */
  readonly callsFrom?: number;
}

/** A failed, retried or rejected call (call span), kept for drill-down. */
export interface CallRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly service: string;
  readonly instance: string;
  readonly server: string;
  readonly method: string;
  readonly tool: string;
  readonly operation: string;
  /** `mcp.resilience.variant` ('' outside an experiment). */
  readonly variant: string;
  readonly startMs: number;
  readonly durationMs: number;
  readonly outcome: string;
  readonly attempts: number;
  readonly errorClass: string;
  readonly errorType: string;
  readonly wastedRetries: number;
  readonly wastedTimeMs: number;
  readonly message: string;
}

/** A failed attempt or a retry (attempt span), kept for the waterfall. */
export interface AttemptRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly attempt: number;
  readonly startMs: number;
  readonly durationMs: number;
  readonly ok: boolean;
  readonly errorClass: string;
  readonly errorType: string;
  readonly decision: string;
  readonly delayMs: number;
  readonly giveUpReason: string;
  readonly execution: string;
  readonly source: string;
  readonly message: string;
}

/** Points or spans not taken, and why (OTLP partial success). */
export interface Rejected {
  readonly count: number;
  readonly reasons: readonly string[];
}

export interface MetricBatch {
  readonly instances: readonly InstanceSeen[];
  readonly facts: readonly FactDelta[];
  readonly series: readonly SeriesUpdate[];
  readonly breakers: readonly BreakerObservation[];
  /** Data points looked at (rejected ones included). */
  readonly points: number;
  readonly rejected: Rejected;
}

export interface TraceBatch {
  readonly instances: readonly InstanceSeen[];
  readonly breakers: readonly BreakerObservation[];
  readonly calls: readonly CallRecord[];
  readonly attempts: readonly AttemptRecord[];
  /** Failed attempts the shadow classifier disagreed on (experiments). */
  readonly shadowExamples: readonly ShadowExampleRecord[];
  readonly spans: number;
  readonly rejected: Rejected;
}

/** A failed attempt the shadow classifier disagreed on (experiments), kept as an example. */
export interface ShadowExampleRecord {
  readonly ts: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly service: string;
  readonly server: string;
  readonly tool: string;
  readonly variant: string;
  readonly errorClass: string;
  readonly errorType: string;
  readonly shadowClass: string;
  readonly shadowType: string;
}
