/*
 * The data-transfer objects every page, the JSON API and the alert engine read: plain, serialisable, the
 * same for every `MetricsSource` implementation. Counts are numerators and denominators, never pre-divided
 * ratios (except `efficiency`, derived from them).
 */

export type BreakerStateName = 'closed' | 'open' | 'half_open';

export interface Filters {
  readonly service?: string | undefined;
  readonly server?: string | undefined;
  readonly tool?: string | undefined;
  /** `mcp.method.name` (`tools/call`, `tools/list`...): the calls without a tool are told apart by it. */
  readonly method?: string | undefined;
  /** `mcp.resilience.variant` (canary/shadow experiments). */
  readonly variant?: string | undefined;
  /**
   * Only these breakers (a page of the Breakers page): the queries of a page read what it shows, not every
   * breaker. A backend may answer a superset (the shaping keeps the exact keys); never set from a URL.
   */
  readonly breakers?: readonly BreakerKey[] | undefined;
}

/** A breaker: its server and tool ('' for a per-server breaker). */
export interface BreakerKey {
  readonly server: string;
  readonly tool: string;
}

/** What the Breakers page asks for: a page of breakers, worst first, optionally filtered. */
export interface BreakerPageQuery {
  /** Breakers skipped (the page's start). */
  readonly offset: number;
  /** Breakers shown at most. */
  readonly limit: number;
  /** Case-insensitive substring of `server` or `server/tool`. */
  readonly match?: string | undefined;
  /** Only breakers in this state (`stale`: no instance reports them any more). */
  readonly state?: BreakerStateName | 'stale' | undefined;
}

/** Breakers per shown state: what the page's filter chips count. */
export type BreakerCounts = Record<BreakerStateName | 'stale', number>;

/** One page of the Breakers page: its tiles and timeline, and how many breakers match in all. */
export interface BreakerPage {
  readonly tiles: BreakerTile[];
  readonly timeline: BreakerTimelineRow[];
  /** Breakers matching `match` (every state), per state. */
  readonly counts: BreakerCounts;
  /** Breakers matching `match` and `state`: `total - offset - tiles.length` more are not shown. */
  readonly total: number;
  readonly offset: number;
  readonly limit: number;
}

export interface TimeQuery {
  /** Epoch ms, inclusive. */
  readonly from: number;
  /** Epoch ms, exclusive. */
  readonly to: number;
  readonly filters: Filters;
}

export interface BreakerSummary {
  readonly server: string;
  readonly tool: string | null;
  readonly state: BreakerStateName;
  /** Epoch ms of the transition into `state`. */
  readonly since: number;
}

/** `GET /api/v1/summary`. */
export interface Summary {
  readonly from: number;
  readonly to: number;
  readonly calls: { total: number; success: number; failure: number; rejected: number };
  readonly retries: { total: number; successful: number; efficiency: number | null };
  readonly errors: {
    byClass: { retryable: number; non_retryable: number; conditional: number };
    byType: Record<string, number>;
  };
  readonly wastedRetries: number;
  readonly wastedRetryTimeSeconds: number;
  readonly mttfNonRetryableSeconds: number | null;
  readonly breakers: BreakerSummary[];
}

/** The counts of one window of the headline. */
export interface HeadlineWindow {
  readonly from: number;
  readonly to: number;
  /** Epoch ms of the first bucket with data in the window (null: no data): rates start there. */
  readonly dataFrom: number | null;
  /**
   * The time rates are divided by, in seconds: from the first data (found in 10 s buckets where the backend
   * keeps them) to the end of the window (or now): idle time after the data counts, before it does not.
   */
  readonly dataSeconds: number;
  readonly retries: { total: number; successful: number; efficiency: number | null };
  readonly calls: { total: number; success: number; failure: number; rejected: number };
  /** Calls over `dataSeconds` (not over the whole window). */
  readonly callsPerMinute: number;
  readonly wastedRetries: number;
  readonly wastedRetryTimeSeconds: number;
  readonly mttfNonRetryableSeconds: number | null;
  /** Failed retries times the user's `costPerAttempt` (null: the agents set no cost). */
  readonly wastedCost: number | null;
  /**
   * Repeats answered from the negative cache (no request sent), the time the failed originals took, and what the
   * repeats would have cost (their originals' attempts × the agents' `costPerAttempt`; null: no agent reports it).
   */
  readonly modelRetries: { avoided: number; savedSeconds: number; savedCost: number | null };
}

/** The numbers at the top of every overview, pushed live over SSE: the selected range, and "now". */
export interface Headline extends HeadlineWindow {
  readonly openBreakers: number;
  /** The same counts over the last `NOW_WINDOW_MS` (5 minutes) before `to`. */
  readonly now: HeadlineWindow;
}

/**
 * Latency of the logical call (all attempts and waits) per server and tool, from the duration histogram: one
 * row per tool whatever method its calls named (`method` is then empty). `tool` is empty for calls without a
 * tool (`tools/list`, `resources/read`, ...; `method` says which) and for calls that named neither (a plain
 * `execute`).
 */
export interface LatencyStat {
  readonly server: string;
  readonly tool: string;
  readonly method: string;
  readonly calls: number;
  /** Seconds; null without observations. */
  readonly p50: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
}

/** What a compare view groups by. */
export type CompareBy = 'service' | 'variant' | 'server' | 'instance';

/** One group of a compare view: the same series as the overview, one group's data. */
export interface CompareGroup {
  readonly key: string;
  readonly efficiency: Series<RatioPoint>;
  readonly calls: Series<CallsPoint>;
  readonly retries: { total: number; successful: number };
  readonly callsTotal: number;
  /** Calls that ended `failure` (a request was sent). */
  readonly failures: number;
  /** Calls failed before any request (`rejected`: an open breaker, the budget, a deadline). */
  readonly rejected: number;
  readonly successes: number;
  /** Requests on the wire: every call that sent one (all but the rejected) plus the retries. */
  readonly requests: number;
  /** Seconds the calls that did not succeed (failure and rejected) took, summed: the time failing cost. */
  readonly failedSeconds: number;
  /** What the group's rates divide by: from its first data to the window's end (or now), seconds. */
  readonly dataSeconds: number;
}

/**
 * Something to mark on every time chart: breaker transitions or alerts firing/resolving. Dense marks are
 * aggregated: one mark per slice of the range (about a pixel column) and state, with how many it stands for.
 */
export interface Annotation {
  /** The first event of the mark. */
  readonly t: number;
  readonly kind: 'transition' | 'alert';
  /** open / half_open / closed for transitions; firing / resolved for alerts. */
  readonly state: string;
  readonly label: string;
  /** Events this mark stands for (1 unless aggregated). */
  readonly count: number;
}

/** Breaker transitions into one state within one slice of a range (`MetricsSource.transitionMarks`). */
export interface TransitionMark {
  /** The first transition of the slice. */
  readonly t: number;
  readonly to: string;
  readonly count: number;
  /** Distinct breakers among them. */
  readonly breakers: number;
  /** One of them (`server` or `server/tool`): the first. */
  readonly example: string;
}

export interface Series<P> {
  /** Bucket width in ms. */
  readonly step: number;
  readonly points: P[];
  /**
   * Epoch ms: points at or after it are partial (their bucket ends after the window's end or after now, so
   * still filling): charts mark them instead of plotting a drop. Absent when every bucket is complete.
   */
  readonly partialFrom?: number;
  /**
   * With `partialFrom`: the newest partial bucket's rate is its count over `end` minus its start (the time its
   * counts cover, `bucketElapsed`: may exceed the bucket when one export carries more; its start when that
   * time is not known: then the bucket is a gap); earlier partial ones' over their part before `end`.
   */
  readonly end?: number;
  /**
   * Set when the step was widened to the data's own resolution: the export interval it holds (`dataStep`),
   * for the chart's note ("30 s buckets: the data is exported every 30 s").
   */
  readonly exportMs?: number;
}

export interface RatioPoint {
  readonly t: number;
  readonly successful: number;
  readonly total: number;
}

export interface CallsPoint {
  readonly t: number;
  readonly success: number;
  readonly failure: number;
  readonly rejected: number;
}

/** Counts per key at time t (keys: error classes or types). */
export interface KeyedPoint {
  readonly t: number;
  readonly values: Record<string, number>;
}

export type BreakdownBy = 'class' | 'type' | 'server' | 'tool';

export interface BreakdownRow {
  readonly key: string;
  readonly count: number;
}

export interface BreakerTile {
  readonly server: string;
  readonly tool: string | null;
  /** The worst state among the instances reporting this breaker. */
  readonly state: BreakerStateName;
  readonly since: number;
  /** Live instances per state ("open 1 / closed 3"). */
  readonly instances: Record<BreakerStateName, number>;
  /** Instances that reported it but exited (not seen for over `GONE_AFTER_MS`), counted apart. */
  readonly gone: number;
  /** No instance has reported this breaker recently. */
  readonly stale: boolean;
  /** Failed / (successful + failed) calls "now" (the last 5 minutes of the window); null without calls. */
  readonly errorRate: number | null;
  /** The same over the whole window. */
  readonly errorRateRange: number | null;
  /** Calls over the window. */
  readonly calls: number;
  /**
   * Calls per second now (the last 5 minutes), from the first data to now; of the services that report this
   * breaker only (as every count of a tile).
   */
  readonly callsPerSecond: number;
  readonly sparkline: Array<{ t: number; calls: number; failures: number }>;
  /** Sparkline points at or after it are still filling (drawn apart, not as a drop). */
  readonly partialFrom?: number;
  /** The latest transition of the instances now in `state` into it (so "in state" and it agree). */
  readonly lastTransition: { at: number; from: string; to: string; reason: string } | null;
  /** Calls waiting at the gate now (`mcp.resilience.circuit_breaker.waiting`, all instances). */
  readonly waiting: number;
  /** Calls shed by a full wait queue over the window (`mcp.resilience.circuit_breaker.shed`). */
  readonly shed: number;
}

export interface TimelineSegment {
  readonly from: number;
  readonly to: number;
  readonly state: BreakerStateName;
}

export interface BreakerTimelineRow {
  readonly server: string;
  readonly tool: string | null;
  readonly segments: TimelineSegment[];
  /** Its last report, when every instance stopped reporting (exited): no state after it ("No data (gone)"). */
  readonly goneFrom?: number;
}

export interface AttemptRow {
  readonly attempt: number;
  readonly name: string;
  readonly startMs: number;
  readonly durationMs: number;
  readonly ok: boolean;
  readonly errorClass: string;
  readonly errorType: string;
  readonly decision: string;
  readonly delayMs: number;
  readonly giveUpReason: string;
  readonly message: string;
}

export interface CallRow {
  readonly traceId: string;
  readonly spanId: string;
  readonly service: string;
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
  /** The call's attempt spans, in order, at most `MAX_ATTEMPTS_PER_CALL`. */
  readonly attemptRows: AttemptRow[];
  /** Attempt spans stored for the call beyond those listed. */
  readonly attemptsOmitted: number;
}

export interface Dimensions {
  readonly services: string[];
  readonly servers: string[];
  readonly tools: string[];
  /** `mcp.resilience.variant` values seen (experiments); empty without experiments. */
  readonly variants: string[];
}

/** The Calls page's query: a window, the filters, and what a chart point links to. */
export interface CallsQuery extends TimeQuery {
  readonly only?: 'failed' | 'retried' | undefined;
  /** success / failure / rejected. */
  readonly outcome?: string | undefined;
  /** The class of the call's last error (retryable / non_retryable / conditional). */
  readonly errorClass?: string | undefined;
  readonly errorType?: string | undefined;
}

/** An agent process (resource `service.name` + `service.instance.id`) that sent data in a window. */
export interface AgentInstance {
  readonly service: string;
  /** `service.instance.id` ('' when the agent sets none). */
  readonly instance: string;
  /** Epoch ms of the last data seen from it (embedded: received; Prometheus: last scraped sample). */
  readonly lastSeen: number;
}

/** `GET /api/v1/instances`. */
export interface InstancesResponse {
  readonly instances: AgentInstance[];
}

/** One breaker state change of one agent instance. */
export interface BreakerTransition {
  /** Epoch ms (Prometheus: the end of the step in which the transitions counter increased). */
  readonly ts: number;
  readonly service: string;
  readonly instance: string;
  readonly server: string;
  /** The tool of a per-tool breaker; null for a per-server breaker. */
  readonly tool: string | null;
  readonly from: string;
  readonly to: string;
  /** Why (`consecutive_failures`, `probe_failed`...); '' when unknown (Prometheus: not in the metrics). */
  readonly reason: string;
}

/** `GET /api/v1/transitions`: oldest first, the newest `limit` of the window. */
export interface TransitionsResponse {
  readonly transitions: BreakerTransition[];
}

/** Retries per server over a window: what the retry-efficiency alert evaluates. */
export interface RetryTotals {
  readonly server: string;
  readonly successful: number;
  readonly total: number;
}
