/** What the function passed to `execute` receives for each attempt. */
export interface AttemptContext {
  /** Aborted when the caller aborts, the call's deadline passes or the attempt's time limit passes. */
  readonly signal: AbortSignal;
  /** 1-based. */
  readonly attempt: number;
  /** Trace-context entries (W3C `traceparent`) for this attempt, filled by the recorder; empty without one. */
  readonly traceContext: Readonly<Record<string, string>>;
}
