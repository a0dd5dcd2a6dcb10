/*
 * Experiments (canary variants and the shadow classifier): the primitive numbers both backends answer
 * (`MetricsSource.experimentData`), and the page's shaped view (`experiments.ts`). Counts, never ratios.
 */

export interface VariantCounts {
  readonly variant: string;
  readonly calls: { total: number; success: number; failure: number; rejected: number };
  /** Retries (attempts 2..N) and the ones that succeeded; failed ones are the wasted retries. */
  readonly retries: { total: number; successful: number };
  /**
   * Model repeats answered from this variant's negative cache (`mcp.resilience.model_retries.avoided`): drawn for
   * the variant but never run, so not in `calls`.
   */
  readonly avoided: number;
  /** Non-retryable failures: the sum and count of their durations (MTTF = sum / count). */
  readonly nonRetryable: { sumSeconds: number; count: number };
  /** The call-duration histogram, cumulative by upper bound (`le`, seconds; the last is +Infinity). */
  readonly latency: ReadonlyArray<{ le: number; count: number }>;
}

/** Failed attempts by variant ('' for none) and the acting classifier's class. */
export interface ErrorClassCount {
  readonly variant: string;
  readonly errorClass: string;
  readonly count: number;
}

/** Failed attempts the shadow classified differently, by variant, acting class/type and shadow class/type. */
export interface DisagreementCount {
  readonly variant: string;
  readonly errorClass: string;
  readonly errorType: string;
  readonly shadowClass: string;
  readonly shadowType: string;
  readonly count: number;
}

/** A failed attempt the shadow disagreed on (embedded store only: spans are not in Prometheus). */
export interface ShadowExample {
  readonly at: number;
  readonly traceId: string;
  /** The attempt span and its call span. */
  readonly spanId: string;
  readonly callSpanId: string;
  readonly service: string;
  readonly server: string;
  readonly tool: string;
  readonly variant: string;
  readonly errorClass: string;
  readonly errorType: string;
  readonly shadowClass: string;
  readonly shadowType: string;
}

export interface ExperimentData {
  readonly from: number;
  readonly to: number;
  /** Variants seen in the window (calls carrying `mcp.resilience.variant`), by name. */
  readonly variants: VariantCounts[];
  readonly errors: ErrorClassCount[];
  readonly disagreements: DisagreementCount[];
  /** null when the backend keeps no spans (PromQL). */
  readonly examples: ShadowExample[] | null;
}
