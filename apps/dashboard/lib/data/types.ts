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

/** The numbers at the top of every overview, pushed live over SSE. */
export interface Headline {
  readonly from: number;
  readonly to: number;
  readonly retries: { total: number; successful: number; efficiency: number | null };
  readonly calls: { total: number; success: number; failure: number; rejected: number };
  readonly callsPerMinute: number;
  readonly openBreakers: number;
  readonly wastedRetries: number;
  readonly wastedRetryTimeSeconds: number;
  readonly mttfNonRetryableSeconds: number | null;
}

export interface Series<P> {
  /** Bucket width in ms. */
  readonly step: number;
  readonly points: P[];
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
  /** Instances per state ("open 1 / closed 3"). */
  readonly instances: Record<BreakerStateName, number>;
  /** No instance has reported this breaker recently. */
  readonly stale: boolean;
  /** Failed / (successful + failed) calls over the window; null without calls. */
  readonly errorRate: number | null;
  readonly calls: number;
  readonly callsPerSecond: number;
  readonly sparkline: Array<{ t: number; calls: number; failures: number }>;
  readonly lastTransition: { at: number; from: string; to: string; reason: string } | null;
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
  readonly startMs: number;
  readonly durationMs: number;
  readonly outcome: string;
  readonly attempts: number;
  readonly errorClass: string;
  readonly errorType: string;
  readonly wastedRetries: number;
  readonly wastedTimeMs: number;
  readonly message: string;
  readonly attemptRows: AttemptRow[];
}

export interface Dimensions {
  readonly services: string[];
  readonly servers: string[];
  readonly tools: string[];
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
