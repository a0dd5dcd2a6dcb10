import type { InstanceBreakerState } from './breakers';
import type { InstanceExport } from './covered-time';
import type { ShadowExample } from './experiments-types';
import type {
  AgentInstance,
  BreakerCounts,
  BreakerKey,
  BreakerPageQuery,
  BreakerStateName,
  BreakerTransition,
  CallRow,
  CallsQuery,
  Dimensions,
  Filters,
  TimeQuery,
  TransitionMark,
} from './types';

/*
 * The primitive queries a backend answers: counts of one metric over a window or per bucket, grouped by a few
 * labels; latency quantiles of the call-duration histogram; breaker states; transitions; spans. Nothing here is
 * shaped for a page: `shaped-source.ts` builds every response (summary, headline, series, breakdowns, tiles)
 * from these, once, for both backends.
 */

/** The counters and histograms the dashboard reads (OTel names in `metric-names.ts`). */
export type MetricName =
  | 'calls'
  | 'retries'
  | 'errors'
  /** Histogram: `value` is the sum of durations (s), `count` the number of calls. */
  | 'callDuration'
  | 'wastedTime'
  | 'wastedCost'
  | 'modelRetriesAvoided'
  | 'modelRetriesSavedTime'
  | 'modelRetriesSavedCost'
  | 'breakerShed'
  /** Experiments: failed attempts the shadow classifier classified differently. */
  | 'shadowDisagreements';

/** The labels a count can be grouped by. */
export type Dim =
  | 'service'
  | 'server'
  | 'tool'
  /** `mcp.method.name`: `tools/call`, `tools/list`, `resources/read`, ... (empty when the call carried none). */
  | 'method'
  | 'outcome'
  | 'errorClass'
  | 'errorType'
  | 'variant'
  /** The shadow classifier's class and type (`shadowDisagreements` only). */
  | 'shadowClass'
  | 'shadowType'
  /** `service.instance.id`: only where `capabilities.instances` (the embedded facts carry no instance). */
  | 'instance';

export type Labels = Readonly<Partial<Record<Dim, string>>>;

export interface CountRow {
  readonly labels: Labels;
  /** The counter's increase (histograms: the sum of observed values). */
  readonly value: number;
  /** Histograms: observations; 0 for counters. */
  readonly count: number;
}

export interface BucketRow extends CountRow {
  /** Bucket index in the plan: [origin + k*step, origin + (k+1)*step). */
  readonly k: number;
}

/** How a chart's range is bucketed: points are origin + k*step, k = 0..count-1. */
export interface BucketPlan {
  readonly step: number;
  readonly origin: number;
  readonly count: number;
}

export interface LatencyRow {
  readonly labels: Labels;
  /** Calls observed in the window. */
  readonly count: number;
  /** Seconds, one per requested quantile; null when the group has no observation. */
  readonly quantiles: ReadonlyArray<number | null>;
}

/** The call-duration histogram of a group over a window: cumulative by upper bound (seconds; +Infinity last). */
export interface HistogramRow {
  readonly labels: Labels;
  readonly buckets: ReadonlyArray<{ readonly le: number; readonly count: number }>;
}

/** Calls waiting at a breaker's gate now (all instances). */
export interface WaitingRow {
  readonly server: string;
  /** '' for a per-server breaker. */
  readonly tool: string;
  readonly waiting: number;
}

/** The breakers of one page, in order, and the counts of the filter. */
export interface BreakerKeysPage {
  readonly keys: BreakerKey[];
  /** Breakers matching `match`, per state. */
  readonly counts: BreakerCounts;
  /** Breakers matching `match` and `state`. */
  readonly total: number;
}

/** A breaker's worst state across its instances from `t` on. */
export interface StateChange {
  readonly server: string;
  /** '' for a per-server breaker. */
  readonly tool: string;
  readonly t: number;
  readonly worst: BreakerStateName;
}

export interface Primitives {
  readonly kind: 'embedded' | 'prometheus';
  readonly capabilities: {
    readonly traces: boolean;
    readonly push: boolean;
    /** Counts can be grouped by agent instance (compare by instance). */
    readonly instances: boolean;
  };
  now(): number;
  /** How long after a bucket ends its data may still arrive (export interval / scrape interval). */
  readonly freshnessMs: number;
  /**
   * The buckets of a chart over `q`: at most about `maxPoints`, never finer than what the backend stores, nor
   * than `dataStepMs` (the data's own resolution: `dataStep` of its export interval).
   */
  plan(q: TimeQuery, maxPoints: number, dataStepMs?: number): BucketPlan;
  /** A metric's increase over [from, to), grouped by `by`; rows with nothing are left out. */
  totals(metric: MetricName, q: TimeQuery, by: readonly Dim[]): Promise<CountRow[]>;
  /** The same per bucket of `plan`. */
  buckets(metric: MetricName, q: TimeQuery, plan: BucketPlan, by: readonly Dim[]): Promise<BucketRow[]>;
  /** Quantiles (0..1) of the call-duration histogram over the window, grouped by `by`. */
  latency(q: TimeQuery, by: readonly Dim[], quantiles: readonly number[]): Promise<LatencyRow[]>;
  /** The call-duration histogram over the window, grouped by `by` (the experiments' latency comparison). */
  histogram(q: TimeQuery, by: readonly Dim[]): Promise<HistogramRow[]>;
  /** Failed attempts the shadow disagreed on, newest first, at most `limit`. Optional: only with spans. */
  shadowExamples?(q: TimeQuery, limit: number): Promise<ShadowExample[]>;
  /** Each instance's current state of each breaker (only processes that report a breaker). */
  instanceBreakers(filters: Filters): Promise<InstanceBreakerState[]>;
  /**
   * A page of breakers (worst first: reported before stale, then open, half-open, closed, then by server and
   * tool) and the counts of the filter, without reading every breaker's rows (SQL LIMIT/OFFSET). Optional: a
   * backend without it is paged from `instanceBreakers` (aggregated once, no per-breaker query).
   */
  breakerPage?(filters: Filters, page: BreakerPageQuery): Promise<BreakerKeysPage>;
  /** Calls waiting at each breaker's gate now. */
  breakerWaiting(filters: Filters): Promise<WaitingRow[]>;
  /**
   * Each breaker's worst state across its instances over the window, as changes in time order: the first
   * change of a breaker is where its data begins (no state before it). Segments: `breaker-timeline.ts`.
   */
  stateChanges(q: TimeQuery): Promise<StateChange[]>;
  transitions(q: TimeQuery, limit: number): Promise<BreakerTransition[]>;
  /**
   * Every transition of the window counted per slice of `sliceMs` (from `q.from`) and target state. Optional:
   * without it, the marks come from `transitions` (the newest `MAX_TRANSITIONS`).
   */
  transitionMarks?(q: TimeQuery, sliceMs: number): Promise<TransitionMark[]>;
  instances(q: TimeQuery): Promise<AgentInstance[]>;
  /**
   * When the newest data (of the service filter) arrived: a still-filling bucket's data ends there, not now.
   * Optional: without it, a partial bucket's rate is taken up to now.
   */
  lastDataAt?(filters: Filters): Promise<number | undefined>;
  /**
   * The newest metrics export of each instance seen in the window (of the service filter): a still-filling
   * bucket's rate divides by the time its counts cover (`covered-time.ts`). Optional: without it, `lastDataAt`.
   */
  instanceExports?(q: TimeQuery): Promise<InstanceExport[]>;
  /** The newest stored calls of the query, `offset` skipped, at most `limit`. */
  recentCalls(q: CallsQuery, limit: number, offset?: number): Promise<CallRow[]>;
  /** How many stored calls match the query (none when spans are not stored). */
  countCalls?(q: CallsQuery): Promise<number>;
  dimensions(q: TimeQuery): Promise<Dimensions>;
  subscribe?(listener: {
    breakers(changed: ReadonlyArray<{ server: string; tool: string }>): void;
    ingested(): void;
  }): () => void;
}
