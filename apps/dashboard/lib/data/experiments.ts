import {
  histogramQuantile,
  type Interval,
  sampleSizePerArm,
  type TwoProportionTest,
  twoProportionTest,
  wilson,
} from './experiment-stats';
import type { DisagreementCount, ExperimentData, ShadowExample, VariantCounts } from './experiments-types';

/*
 * The Experiments page's view of `ExperimentData`: per variant rates with 95% Wilson intervals, and for each
 * candidate a verdict against the control from two-proportion z-tests (call success rate and retry
 * efficiency), plus the shadow classifier's confusion matrix. Pure.
 */

/** Calls per arm before the success rate is tested. */
export const MIN_CALLS = 30;
/** Retries per arm before retry efficiency is tested (the dashboard's "insufficient data" rule). */
export const MIN_RETRIES = 20;
export const ERROR_CLASSES = ['retryable', 'conditional', 'non_retryable'] as const;
/** Variants shown at most (the control and the busiest others): variant names come from telemetry. */
export const MAX_VARIANTS = 20;

export interface VariantView {
  readonly variant: string;
  readonly control: boolean;
  readonly calls: number;
  /** Repeats answered from the variant's negative cache (drawn for it, not run). */
  readonly avoided: number;
  /** This variant's calls / all variants' calls (calls that ran); null without calls. */
  readonly callShare: number | null;
  /**
   * (calls + avoided repeats) / the same for all variants: the share of draws, which the split sets. A variant
   * whose repeats its cache answers less often (the smaller arm: its cache holds only its own verdicts) gets more
   * of the calls that ran than of the draws.
   */
  readonly drawnShare: number | null;
  /** Calls that succeeded / all calls (rejections count as failures). */
  readonly success: (Interval & { successes: number; total: number }) | null;
  /** Successful retries / retries; null below `MIN_RETRIES` retries. */
  readonly efficiency: (Interval & { successes: number; total: number }) | null;
  readonly retries: number;
  readonly wastedRetries: number;
  readonly wastedPer1000Calls: number | null;
  readonly mttfNonRetryableSeconds: number | null;
  readonly p95Seconds: number | null;
}

export type Verdict = 'better' | 'worse' | 'not_significant' | 'insufficient';

export interface MetricTest {
  readonly metric: 'success' | 'efficiency';
  readonly test: TwoProportionTest | null;
  /** More observations (calls, or retries for efficiency) each arm needs for the observed difference. */
  readonly morePerArm: number | null;
  readonly enough: boolean;
}

export interface Comparison {
  readonly candidate: string;
  readonly control: string;
  readonly verdict: Verdict;
  /** The plain sentence the page shows. */
  readonly text: string;
  /** About how many more calls (all variants together, at the current split) a not-yet-significant result needs. */
  readonly moreCalls: number | null;
  readonly tests: MetricTest[];
}

export interface ConfusionCell {
  readonly primary: string;
  readonly shadow: string;
  readonly count: number;
}

export interface DisagreementRow extends DisagreementCount {
  readonly examples: ShadowExample[];
}

export interface Experiment {
  readonly from: number;
  readonly to: number;
  readonly variants: VariantView[];
  readonly comparisons: Comparison[];
  readonly shadow: {
    /** Failed attempts (all variants) and how many the shadow classified differently. */
    readonly failures: number;
    readonly disagreements: number;
    /** By class: acting (rows) × shadow (columns); the diagonal includes same-class, other-type verdicts. */
    readonly matrix: ConfusionCell[];
    /** By class and type, most frequent first, with example calls (embedded store). */
    readonly rows: DisagreementRow[];
    readonly examplesAvailable: boolean;
  };
}

/** The control: the variant named `control`, else the one with the most calls. */
export function pickControl(variants: readonly VariantCounts[]): string | null {
  if (variants.length === 0) return null;
  if (variants.some((v) => v.variant === 'control')) return 'control';
  return [...variants].sort((a, b) => b.calls.total - a.calls.total || (a.variant < b.variant ? -1 : 1))[0]!
    .variant;
}

/** The calls that ran and the calls drawn (ran + avoided repeats) of all variants together. */
interface ShareTotals {
  readonly calls: number;
  readonly drawn: number;
}

function shareTotals(variants: readonly VariantCounts[]): ShareTotals {
  let calls = 0;
  let drawn = 0;
  for (const v of variants) {
    calls += v.calls.total;
    drawn += v.calls.total + v.avoided;
  }
  return { calls, drawn };
}

function viewsOf(shown: readonly VariantCounts[], control: string | null, all: ShareTotals): VariantView[] {
  return shown.map((v) => view(v, v.variant === control, all));
}

function view(v: VariantCounts, control: boolean, all: ShareTotals): VariantView {
  const total = v.calls.total;
  const success = wilson(v.calls.success, total);
  const eff = v.retries.total >= MIN_RETRIES ? wilson(v.retries.successful, v.retries.total) : null;
  const wasted = v.retries.total - v.retries.successful;
  const latencyCount = v.latency.at(-1)?.count ?? 0;
  return {
    variant: v.variant,
    control,
    calls: total,
    avoided: v.avoided,
    callShare: all.calls > 0 ? total / all.calls : null,
    drawnShare: all.drawn > 0 ? (total + v.avoided) / all.drawn : null,
    success: success && { ...success, successes: v.calls.success, total },
    efficiency: eff && { ...eff, successes: v.retries.successful, total: v.retries.total },
    retries: v.retries.total,
    wastedRetries: wasted,
    wastedPer1000Calls: total > 0 ? (wasted / total) * 1000 : null,
    mttfNonRetryableSeconds:
      v.nonRetryable.count > 0 ? v.nonRetryable.sumSeconds / v.nonRetryable.count : null,
    p95Seconds: latencyCount > 0 ? histogramQuantile(0.95, v.latency) : null,
  };
}

function metricTest(
  metric: MetricTest['metric'],
  x1: number,
  n1: number,
  x2: number,
  n2: number,
  min: number,
): MetricTest {
  const enough = n1 >= min && n2 >= min;
  const test = enough ? twoProportionTest(x1, n1, x2, n2) : null;
  const perArm = n1 > 0 && n2 > 0 ? sampleSizePerArm(x1 / n1, x2 / n2) : null;
  const morePerArm = perArm === null ? null : Math.max(0, perArm - Math.min(n1, n2), min - Math.min(n1, n2));
  return { metric, test, morePerArm, enough };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const points = (d: number) => `${d > 0 ? '+' : ''}${(d * 100).toFixed(1)} pts`;
const NAMES = { success: 'success rate', efficiency: 'retry efficiency' } as const;

/** A candidate against the control: worse if any metric is significantly worse, better if one is better. */
export function compare(candidate: VariantCounts, control: VariantCounts): Comparison {
  const tests = [
    metricTest(
      'success',
      candidate.calls.success,
      candidate.calls.total,
      control.calls.success,
      control.calls.total,
      MIN_CALLS,
    ),
    metricTest(
      'efficiency',
      candidate.retries.successful,
      candidate.retries.total,
      control.retries.successful,
      control.retries.total,
      MIN_RETRIES,
    ),
  ];
  const [success] = tests as [MetricTest, MetricTest];
  const worse = tests.filter((t) => t.test?.significant && t.test.diff < 0);
  const better = tests.filter((t) => t.test?.significant && t.test.diff > 0);
  const describe = (t: MetricTest) =>
    `${NAMES[t.metric]} ${points(t.test!.diff)} (p ${t.test!.p < 0.001 ? '< 0.001' : `= ${t.test!.p.toFixed(3)}`})`;
  // Calls in all, at the current split, before the smaller arm has what it needs: the arm's share of calls.
  const totalCalls = candidate.calls.total + control.calls.total;
  const smaller = Math.min(candidate.calls.total, control.calls.total);
  const share = totalCalls > 0 ? smaller / totalCalls : 0;
  /** Calls in all for `perArm` more in the smaller arm, at the current split. */
  const scale = (perArm: number) => Math.ceil((perArm * totalCalls) / smaller);
  const callsPerRetry = (v: VariantCounts) => (v.retries.total > 0 ? v.calls.total / v.retries.total : null);
  const moreCallsOf = (t: MetricTest): number | null => {
    if (t.morePerArm === null || share === 0) return null;
    let perArmCalls = t.morePerArm;
    if (t.metric === 'efficiency') {
      const ratio = Math.max(callsPerRetry(candidate) ?? 0, callsPerRetry(control) ?? 0);
      if (ratio === 0) return null;
      perArmCalls *= ratio;
    }
    return scale(perArmCalls);
  };
  const base = { candidate: candidate.variant, control: control.variant, tests };
  if (worse.length > 0) {
    return {
      ...base,
      verdict: 'worse',
      moreCalls: null,
      text: `${candidate.variant} is worse than ${control.variant}: ${worse.map(describe).join('; ')}.`,
    };
  }
  if (better.length > 0) {
    return {
      ...base,
      verdict: 'better',
      moreCalls: null,
      text: `${candidate.variant} is better than ${control.variant}: ${better.map(describe).join('; ')}.`,
    };
  }
  if (!success.enough) {
    const more = Math.max(0, MIN_CALLS - Math.min(candidate.calls.total, control.calls.total));
    const moreCalls = share > 0 ? scale(more) : null;
    return {
      ...base,
      verdict: 'insufficient',
      moreCalls,
      text: `${candidate.variant} vs ${control.variant}: each variant needs at least ${MIN_CALLS} calls${moreCalls === null ? '' : ` (~${moreCalls.toLocaleString('en-US')} more calls)`}.`,
    };
  }
  const estimates = tests.map(moreCallsOf).filter((n): n is number => n !== null);
  const moreCalls = estimates.length > 0 ? Math.min(...estimates) : null;
  const rates = `success ${pct(candidate.calls.success / candidate.calls.total)} vs ${pct(control.calls.success / control.calls.total)}`;
  return {
    ...base,
    verdict: 'not_significant',
    moreCalls,
    text:
      moreCalls === null
        ? `${candidate.variant} vs ${control.variant}: ${rates}, no difference so far.`
        : `${candidate.variant} vs ${control.variant}: ${rates}; needs ~${moreCalls.toLocaleString('en-US')} more calls.`,
  };
}

/** The whole page. */
export function shapeExperiment(data: ExperimentData): Experiment {
  const controlName = pickControl(data.variants);
  const control = data.variants.find((v) => v.variant === controlName);
  const ordered = [...data.variants]
    .sort((a, b) =>
      a.variant === controlName ? -1 : b.variant === controlName ? 1 : b.calls.total - a.calls.total,
    )
    .slice(0, MAX_VARIANTS)
    .sort((a, b) =>
      a.variant === controlName ? -1 : b.variant === controlName ? 1 : a.variant < b.variant ? -1 : 1,
    );
  const variants = viewsOf(ordered, controlName, shareTotals(data.variants));
  const comparisons = control ? ordered.filter((v) => v !== control).map((v) => compare(v, control)) : [];

  const byClass = new Map<string, number>();
  for (const e of data.errors) byClass.set(e.errorClass, (byClass.get(e.errorClass) ?? 0) + e.count);
  const off = new Map<string, number>();
  for (const d of data.disagreements) {
    if (d.errorClass === d.shadowClass) continue;
    const k = `${d.errorClass}\u0001${d.shadowClass}`;
    off.set(k, (off.get(k) ?? 0) + d.count);
  }
  const classes = [
    ...new Set([...ERROR_CLASSES, ...byClass.keys(), ...data.disagreements.map((d) => d.shadowClass)]),
  ];
  const matrix: ConfusionCell[] = [];
  for (const primary of classes) {
    let leaving = 0;
    for (const shadow of classes) {
      if (shadow === primary) continue;
      const count = off.get(`${primary}\u0001${shadow}`) ?? 0;
      leaving += count;
      matrix.push({ primary, shadow, count });
    }
    matrix.push({ primary, shadow: primary, count: Math.max(0, (byClass.get(primary) ?? 0) - leaving) });
  }
  const examples = data.examples ?? [];
  const rows = [...data.disagreements]
    .sort((a, b) => b.count - a.count)
    .map((d) => ({
      ...d,
      examples: examples
        .filter(
          (e) =>
            e.variant === d.variant &&
            e.errorClass === d.errorClass &&
            e.errorType === d.errorType &&
            e.shadowClass === d.shadowClass &&
            e.shadowType === d.shadowType,
        )
        .slice(0, 3),
    }));
  return {
    from: data.from,
    to: data.to,
    variants,
    comparisons,
    shadow: {
      failures: [...byClass.values()].reduce((s, n) => s + n, 0),
      disagreements: data.disagreements.reduce((s, d) => s + d.count, 0),
      matrix,
      rows,
      examplesAvailable: data.examples !== null,
    },
  };
}
