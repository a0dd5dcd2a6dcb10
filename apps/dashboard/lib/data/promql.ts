import {
  PROM_LABEL_GEN_AI_TOOL_NAME,
  PROM_LABEL_MCP_METHOD_NAME,
  PROM_LABEL_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE,
  PROM_LABEL_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
  PROM_LABEL_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE,
  PROM_LABEL_MCP_RESILIENCE_SERVER,
  PROM_LABEL_MCP_RESILIENCE_VARIANT,
  PROM_MCP_RESILIENCE_CALLS_TOTAL,
  PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
  PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS_TOTAL,
  PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING,
} from '@mcp-resilience/middleware/semconv';
import type { Filters } from './types';

/*
 * Every PromQL query of the dashboard, as a named builder. Metric and label names come from the telemetry
 * contract (`@mcp-resilience/middleware/semconv`); `job` and `instance` are the labels Prometheus exporters
 * (the collector's `prometheus` exporter, scraped with `honor_labels: true`) build from the resource's
 * `service.name` and `service.instance.id`.
 *
 * Counting: a window's count is never `increase()` (which extrapolates to the window's edges and drops the first
 * value of a series born inside the window, so it is almost never an integer). It is `exactIncrease`: per series,
 * the last value in the window minus the last value before it, or the whole last value for a series that has no
 * sample before the window (a counter that started from 0 inside it). Only a series that reset inside the window
 * (a process restarted with the same `service.instance.id`) falls back to `increase()`. Numerators and
 * denominators are summed separately (`sum by`), never averaged ratios.
 */

/** The Prometheus target label built from `service.name`. */
export const LABEL_JOB = 'job';
/** The Prometheus target label built from `service.instance.id`. */
export const LABEL_INSTANCE = 'instance';
const S = PROM_LABEL_MCP_RESILIENCE_SERVER;
const T = PROM_LABEL_GEN_AI_TOOL_NAME;

/** A PromQL string literal (Go escapes, which JSON's are a subset of). */
export const str = (v: string): string => JSON.stringify(v);

/** Escapes a literal for an RE2 regular expression (PromQL `=~` matchers are anchored). */
export const regexLiteral = (v: string): string => v.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');

/** A PromQL duration in milliseconds (at least 1 ms). */
export const dur = (ms: number): string => `${Math.max(1, Math.round(ms))}ms`;

/**
 * A selector with the page filters: service → `job`, server → `mcp_resilience_server`, tool → `gen_ai_tool_name`,
 * method → `mcp_method_name`. For breaker metrics (`breakerScope`), a tool filter also keeps per-server breakers
 * (no tool label), as the embedded store does, and a method filter is not applied (breakers carry no method).
 */
export function selector(
  metric: string,
  filters: Filters,
  extra: Readonly<Record<string, string>> = {},
  options: { breakerScope?: boolean } = {},
): string {
  const m: string[] = [];
  if (filters.service !== undefined) m.push(`${LABEL_JOB}=${str(filters.service)}`);
  if (filters.server !== undefined) m.push(`${S}=${str(filters.server)}`);
  if (filters.tool !== undefined) {
    m.push(
      options.breakerScope ? `${T}=~${str(`|${regexLiteral(filters.tool)}`)}` : `${T}=${str(filters.tool)}`,
    );
  }
  if (filters.method !== undefined && !options.breakerScope) {
    m.push(`${PROM_LABEL_MCP_METHOD_NAME}=${str(filters.method)}`);
  }
  if (filters.variant !== undefined) m.push(`${PROM_LABEL_MCP_RESILIENCE_VARIANT}=${str(filters.variant)}`);
  // a page of breakers: their servers only (a superset when tools differ; the shaping keeps the exact keys)
  if (filters.breakers !== undefined && filters.breakers.length > 0) {
    const servers = [...new Set(filters.breakers.map((b) => regexLiteral(b.server)))];
    m.push(`${S}=~${str(servers.join('|'))}`);
  }
  for (const [k, v] of Object.entries(extra)) m.push(`${k}=${str(v)}`);
  return `${metric}${m.length > 0 ? `{${m.join(', ')}}` : ''}`;
}

/** Windows longer than this read counters through a 5-minute subquery instead of every raw sample. */
export const LONG_WINDOW_MS = 6 * 3_600_000;
/** The subquery step of long windows: the default lookback delta, so no live series is missed. */
export const LONG_WINDOW_STEP_MS = 300_000;

/**
 * The exact increase of counter `sel` over the `windowMs` before the evaluation time (see the header):
 * `lookbackMs` is how far before the window the previous value is looked for. Over long windows (a day, a
 * week) the last value is the current sample, else the last of a 5-minute subquery, and resets are looked for
 * in that subquery: 2016 points a series for a week instead of 40,320 raw samples at a 15 s scrape.
 */
export function exactIncrease(sel: string, windowMs: number, lookbackMs: number): string {
  const w = dur(windowMs);
  const before = `last_over_time(${sel}[${dur(lookbackMs)}] offset ${w})`;
  const range = windowMs > LONG_WINDOW_MS ? `[${w}:${dur(LONG_WINDOW_STEP_MS)}]` : `[${w}]`;
  const last =
    windowMs > LONG_WINDOW_MS
      ? `(${sel} or last_over_time(${sel}${range}))`
      : `last_over_time(${sel}${range})`;
  return `(
    ((${last} - ${before}) >= 0 unless resets(${sel}${range}) > 0)
  or (increase(${sel}${range}) and resets(${sel}${range}) > 0)
  or ${last}
)`;
}

const sumBy = (by: readonly string[], expr: string): string =>
  by.length > 0 ? `sum by (${by.join(', ')}) (${expr})` : `sum(${expr})`;

/** A counter's exact increase over a window, summed by some labels. */
export function totalBy(
  metric: string,
  by: readonly string[],
  filters: Filters,
  windowMs: number,
  lookbackMs: number,
  extra: Readonly<Record<string, string>> = {},
): string {
  return sumBy(by, exactIncrease(selector(metric, filters, extra), windowMs, lookbackMs));
}

export interface Window {
  readonly filters: Filters;
  /** The window (instant queries) or the step (range queries), in ms. */
  readonly windowMs: number;
  readonly lookbackMs: number;
}

// -------------------------------------------------------------------------------------------------------------
// Counts (summary, headline, alert engine, charts: instant queries over the window, or range queries per step)
// -------------------------------------------------------------------------------------------------------------

/**
 * A quantile of the call-duration histogram over a window per group: `histogram_quantile` over the buckets'
 * exact increases, summed by `le` and the group labels.
 */
export function durationQuantile(
  q: Window,
  quantile: number,
  by: readonly string[],
  bucketMetric: string,
): string {
  return `histogram_quantile(${quantile}, ${sumBy(['le', ...by], exactIncrease(selector(bucketMetric, q.filters), q.windowMs, q.lookbackMs))})`;
}

/** Calls waiting at each breaker's gate now, per breaker key (all instances still reporting). */
export function breakerWaiting(filters: Filters, staleMs: number): string {
  return `sum by (${S}, ${T}) (last_over_time(${selector(PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING, filters, {}, { breakerScope: true })}[${dur(staleMs)}]))`;
}

// -------------------------------------------------------------------------------------------------------------
// Circuit breakers (the one-hot state gauge and the transitions counter)
// -------------------------------------------------------------------------------------------------------------

const stateSelector = (filters: Filters, extra: Readonly<Record<string, string>> = {}) =>
  selector(PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE, filters, extra, { breakerScope: true });

/**
 * Each instance's current state of each breaker: the state series whose value is 1. Value 1: reported now
 * (within Prometheus's lookback, not marked stale); value 2: last reported within `staleMs` but not any more.
 */
export function breakerStates(filters: Filters, staleMs: number): string {
  const sel = stateSelector(filters);
  return `(${sel} == 1) or ((last_over_time(${sel}[${dur(staleMs)}]) == 1) + 1)`;
}

/** The parts `breakerSince` answers, in the `part` label. */
export const SINCE_PARTS = {
  /** The last fine step (over the last hour) at which the current state's series was 0. */
  zeroFine: 'zero_fine',
  /** The same over the last day, in 5-minute steps. */
  zeroCoarse: 'zero_coarse',
  /** The first fine step (last hour) at which it was 1. */
  oneFine: 'one_fine',
  /** The first 5-minute step (last day) at which it was 1. */
  oneCoarse: 'one_coarse',
} as const;
export const SINCE_COARSE_MS = 300_000;
export const SINCE_FINE_WINDOW_MS = 3_600_000;

/**
 * The material to tell since when (epoch seconds) each instance's breaker has been in its current state, for
 * the current-state series only, in four parts (`SINCE_PARTS`): the state began one step after its series was
 * last 0, or, when it never was 0, at the first step it was 1. Fine steps (`resolutionMs`, the scrape
 * interval) over the last hour, 5-minute steps over the last day; precise to a scrape interval plus a step.
 */
export function breakerSince(filters: Filters, staleMs: number, resolutionMs: number): string {
  const sel = stateSelector(filters);
  const fine = `[${dur(SINCE_FINE_WINDOW_MS)}:${dur(resolutionMs)}]`;
  const coarse = `[1d:${dur(SINCE_COARSE_MS)}]`;
  const part = (name: string, expr: string) => `label_replace(${expr}, "part", ${str(name)}, "", "")`;
  return `(
    ${part(SINCE_PARTS.zeroFine, `max_over_time(timestamp(${sel} == 0)${fine})`)}
  or ${part(SINCE_PARTS.zeroCoarse, `max_over_time(timestamp(${sel} == 0)${coarse})`)}
  or ${part(SINCE_PARTS.oneFine, `min_over_time(timestamp(${sel} == 1)${fine})`)}
  or ${part(SINCE_PARTS.oneCoarse, `min_over_time(timestamp(${sel} == 1)${coarse})`)}
) and ignoring (part) (last_over_time(${sel}[${dur(staleMs)}]) == 1)`;
}

/** The worst state over each step per breaker key, as a rank: 2 open, 1 half-open, 0 closed. */
export function breakerWorstRank(filters: Filters, stepMs: number): string {
  const at = (state: string) =>
    `max_over_time(${stateSelector(filters, { [PROM_LABEL_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE]: state })}[${dur(stepMs)}])`;
  return `max by (${S}, ${T}) (
    (${at('open')} == 1) * 2
  or (${at('half_open')} == 1)
  or (${at('closed')} == 1) * 0
)`;
}

/** Transitions per instance, breaker and (from, to) in each step (the counter's exact increase). */
export function transitionCounts(filters: Filters, stepMs: number, lookbackMs: number): string {
  return sumBy(
    [
      LABEL_JOB,
      LABEL_INSTANCE,
      S,
      T,
      PROM_LABEL_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE,
      PROM_LABEL_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE,
    ],
    exactIncrease(
      selector(PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS_TOTAL, filters, {}, { breakerScope: true }),
      stepMs,
      lookbackMs,
    ),
  );
}

// -------------------------------------------------------------------------------------------------------------
// Agent instances and filter values
// -------------------------------------------------------------------------------------------------------------

/** The series every reporting agent instance has: its calls and its breakers. */
function presenceSelectors(service: string | undefined): [string, string] {
  const f: Filters = { service };
  return [
    selector(PROM_MCP_RESILIENCE_CALLS_TOTAL, f),
    selector(PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE, f),
  ];
}

/**
 * The latest sample time (epoch seconds) of each (job, instance) in the window, sampled every `resolutionMs`
 * (`timestamp()` of a plain selector is the sample's own time).
 */
export function instancesLastSeen(
  service: string | undefined,
  windowMs: number,
  resolutionMs: number,
): string {
  const [calls, states] = presenceSelectors(service);
  const range = `[${dur(windowMs)}:${dur(resolutionMs)}]`;
  return `max by (${LABEL_JOB}, ${LABEL_INSTANCE}) (
    max_over_time(timestamp(${calls})${range})
  or max_over_time(timestamp(${states})${range})
)`;
}

/** The exact latest sample time of each (job, instance) still reported at the evaluation time. */
export function instancesLatestSample(service: string | undefined): string {
  const [calls, states] = presenceSelectors(service);
  return `max by (${LABEL_JOB}, ${LABEL_INSTANCE}) (timestamp(${calls}) or timestamp(${states}))`;
}

/**
 * The sum of each (job, instance)'s calls counter, as a range query samples it: its changes are the instance's
 * exports (`exports-from-samples.ts`).
 */
export function exportProbe(callsCounter: string, service: string | undefined): string {
  return `sum by (${LABEL_JOB}, ${LABEL_INSTANCE}) (${selector(callsCounter, { service })})`;
}

/** Series selectors for the label-values API (filter drop-downs). */
export const dimensionMatchers = (): string[] => [...presenceSelectors(undefined)];
