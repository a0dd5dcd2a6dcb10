import type { ExperimentData } from './experiments-types';
import type {
  AgentInstance,
  BreakdownBy,
  BreakdownRow,
  BreakerPage,
  BreakerPageQuery,
  BreakerSummary,
  BreakerTile,
  BreakerTimelineRow,
  BreakerTransition,
  CallRow,
  CallsPoint,
  CallsQuery,
  CompareBy,
  CompareGroup,
  Dimensions,
  Headline,
  KeyedPoint,
  LatencyStat,
  RatioPoint,
  RetryTotals,
  Series,
  Summary,
  TimeQuery,
  TransitionMark,
} from './types';

/**
 * Seconds as every source reports them: rounded to 12 decimals, so that two backends adding the same durations
 * in a different order report the same number (floating-point sums differ in their last bits).
 */
export const roundSeconds = (seconds: number): number => Math.round(seconds * 1e12) / 1e12;

/** Default (and maximum) number of transitions `transitions()` returns. */
export const MAX_TRANSITIONS = 1000;

/**
 * THE data interface of the dashboard: one async function per question, domain-level (no SQL, no PromQL
 * leaks out), returning numerators and denominators. One implementation, `ShapedSource` (`shaped-source.ts`),
 * builds every answer from a backend's primitive queries (`primitives.ts`): the embedded store (default,
 * `embedded-source.ts`) or PromQL (`DASHBOARD_SOURCE=prometheus`, `prometheus-source.ts`). Pages, the JSON
 * API, the SSE stream and the alert engine all read through it; one contract suite
 * (`system/contract.system.test.ts`) checks that both give the same numbers for the same workload.
 */
export interface MetricsSource {
  readonly kind: 'embedded' | 'prometheus';
  readonly capabilities: {
    /** Spans are stored (Calls page); false for PromQL, whose pages say where traces are instead. */
    readonly traces: boolean;
    /** Breaker changes are pushed (`subscribe`) rather than found by polling. */
    readonly push: boolean;
    /** Counts per agent instance (compare by instance): PromQL only, the embedded facts carry no instance. */
    readonly instances: boolean;
  };

  summary(q: TimeQuery): Promise<Summary>;
  headline(q: TimeQuery): Promise<Headline>;
  retryTotals(q: TimeQuery): Promise<RetryTotals[]>;
  /**
   * Where the window's calls or retries of each server begin (the start of their first 10 s bucket, at the
   * finest resolution kept there; never before `q.from`; servers without any are absent): the span a number
   * over the window really covers (the alerts' summaries).
   */
  dataStartByServer(q: TimeQuery, metric: 'calls' | 'retries'): Promise<Map<string, number>>;

  efficiencySeries(q: TimeQuery): Promise<Series<RatioPoint>>;
  callSeries(q: TimeQuery): Promise<Series<CallsPoint>>;
  errorSeries(q: TimeQuery, by: 'class' | 'type'): Promise<Series<KeyedPoint>>;
  errorBreakdown(q: TimeQuery, by: BreakdownBy): Promise<BreakdownRow[]>;
  /** Failed attempts by type and the class they were given (one query: class and type tables agree). */
  errorMatrix(q: TimeQuery): Promise<Array<{ type: string; errorClass: string; count: number }>>;
  /** p50/p95/p99 of the call duration per server and tool (one row per tool), or method for calls without a tool. */
  latency(q: TimeQuery): Promise<LatencyStat[]>;
  /** The overview's series side by side per service, variant or server (same plan, same axes). */
  compare(q: TimeQuery, by: CompareBy): Promise<CompareGroup[]>;

  breakers(q: Pick<TimeQuery, 'filters'>): Promise<BreakerSummary[]>;
  breakerTiles(q: TimeQuery): Promise<BreakerTile[]>;
  /** One page of breakers (tiles and timeline of those only) and the counts of the filter. */
  breakerPage(q: TimeQuery, page: BreakerPageQuery): Promise<BreakerPage>;
  breakerTimeline(q: TimeQuery): Promise<BreakerTimelineRow[]>;

  /** Agent instances that sent data in the window (filter: service only), by service then instance. */
  instances(q: TimeQuery): Promise<AgentInstance[]>;
  /** Breaker transitions in the window, oldest first, at most `limit` (the newest ones). */
  transitions(q: TimeQuery, options?: { limit?: number }): Promise<BreakerTransition[]>;
  /** Every transition of the window, counted per slice of `sliceMs` and target state (the charts' marks). */
  transitionMarks(q: TimeQuery, sliceMs: number): Promise<TransitionMark[]>;

  recentCalls(
    q: CallsQuery,
    options: { limit: number; offset?: number; only?: 'failed' | 'retried' },
  ): Promise<CallRow[]>;
  /** How many stored calls match (the Calls page's "N more"). */
  countCalls(q: CallsQuery): Promise<number>;
  dimensions(q: TimeQuery): Promise<Dimensions>;

  /** Experiments: per variant counts, shadow disagreements (and examples when spans are stored). */
  experimentData(q: TimeQuery): Promise<ExperimentData>;

  /** Called with the (server, tool) of breakers whose state changed; returns an unsubscribe function. */
  subscribe?(listener: {
    breakers(changed: ReadonlyArray<{ server: string; tool: string }>): void;
    ingested(): void;
  }): () => void;
}
