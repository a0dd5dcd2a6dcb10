import type { QualityCell } from './quality.js';

export type Status = 'met' | 'missed' | 'insufficient data';

export interface TargetCheck {
  readonly key: string;
  readonly target: string;
  /** Per scenario where the target applies to each scenario; one entry ('production' / 'outage') otherwise. */
  readonly results: readonly {
    readonly scenario: string;
    readonly scenarioName: string;
    readonly status: Status;
    readonly value: string;
    readonly why?: string;
  }[];
  readonly status: Status;
}

const MCP = 'mcp-resilience';
/** Design §2: with fewer retries than this, efficiency is "insufficient data". */
export const MIN_RETRIES_FOR_EFFICIENCY = 20;

const pct = (x: number, digits = 1) => `${(100 * x).toFixed(digits)}%`;
const seconds = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);

function cell(cells: readonly QualityCell[], scenario: string, policy: string): QualityCell {
  const found = cells.find((c) => c.scenario === scenario && c.policy === policy);
  if (!found) throw new Error(`no result for ${policy} on ${scenario}`);
  return found;
}

const overall = (statuses: readonly Status[]): Status =>
  statuses.includes('missed') ? 'missed' : statuses.every((s) => s === 'met') ? 'met' : 'insufficient data';

/** mcp-resilience's failed calls by reason, most first, as text. */
export function failureReasons(c: QualityCell): string {
  return Object.entries(c.outcomes)
    .filter(([k]) => k !== 'success')
    .map(([k, n]) => `${k.replace(/^ResilienceError\((.*)\)$/, '$1')} ${n}`)
    .join(', ');
}

function wastedWhy(c: QualityCell): string {
  const w = c.diagnosis.wastedRetries;
  const parts = [
    [w.permanentFaultRevealed, "met the call's own permanent fault, hidden behind a transient first failure"],
    [w.permanentFaultRetried, 'retried a permanent fault already returned'],
    [w.endpointStillDown, 'found the endpoint still down'],
    [w.stillRateLimited, 'were still rate limited'],
    [w.transientAgain, 'met another independent transient fault'],
    [w.cutByDeadline, 'were cut by the deadline'],
  ] as const;
  return `${c.metrics.wastedRetries} wasted retries of ${c.metrics.retries}: ${parts
    .filter(([n]) => n > 0)
    .map(([n, text]) => `${n} ${text}`)
    .join('; ')}.`;
}

function mttfWhy(c: QualityCell): string {
  const n = c.diagnosis.nonRetryable;
  const parts: string[] = [
    `${n.calls} calls ended with a non-retryable error; ${n.atOnce} got it at their first request at once`,
  ];
  if (n.afterTransientFailures) {
    parts.push(
      `${n.afterTransientFailures} first met transient failures (timeouts, 5xx, resets; ${seconds(n.transientMs / n.afterTransientFailures)} on average) before a retry revealed the non-retryable error`,
    );
  }
  if (n.waitedBeforeFirstRequest) {
    parts.push(
      `${n.waitedBeforeFirstRequest} waited before their first request (the endpoint's announced Retry-After; ${seconds(n.waitedMs / n.waitedBeforeFirstRequest)} on average)`,
    );
  }
  if (n.retriedNonRetryable) parts.push(`${n.retriedNonRetryable} retried the non-retryable error`);
  const fr = c.metrics.mttfFirstRequestRatio;
  return `${parts.join('; ')}. ${fr === null ? '' : `Over the calls whose first request got the non-retryable error, the ratio is ${fr.toFixed(2)}×.`}`;
}

/** The issue's targets for mcp-resilience's defaults, checked against the pooled results. */
export function checkTargets(
  cells: readonly QualityCell[],
  scenarioList: readonly { readonly key: string; readonly name: string }[],
): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const scenarios = scenarioList.map((s) => s.key);
  const nameOf = (key: string) => scenarioList.find((s) => s.key === key)?.name ?? key;

  {
    const m = cell(cells, 'production', MCP);
    const n = cell(cells, 'production', 'naive');
    const reduction = n.metrics.wastedRetries ? 1 - m.metrics.wastedRetries / n.metrics.wastedRetries : 0;
    const equalOrBetter = m.metrics.succeeded >= n.metrics.succeeded;
    const status: Status = reduction >= 0.95 && equalOrBetter ? 'met' : 'missed';
    checks.push({
      key: 'wasted-retries',
      target:
        'Production mix: ≥ 95% fewer wasted retries than the naive loop, at an equal or better success rate',
      results: [
        {
          scenario: 'production',
          scenarioName: nameOf('production'),
          status,
          value: `${m.metrics.wastedRetries} vs ${n.metrics.wastedRetries} wasted retries (${pct(reduction)} fewer); success ${pct(m.metrics.successRate, 2)} vs ${pct(n.metrics.successRate, 2)}`,
          ...(status === 'missed'
            ? {
                why: equalOrBetter
                  ? wastedWhy(m)
                  : `success is lower: failed calls by reason: ${failureReasons(m)}`,
              }
            : {}),
        },
      ],
      status,
    });
  }

  {
    const results = scenarios.map((scenario) => {
      const c = cell(cells, scenario, MCP);
      const e = c.metrics.retryEfficiency;
      if (c.metrics.retries < MIN_RETRIES_FOR_EFFICIENCY) {
        return {
          scenario,
          scenarioName: nameOf(scenario),
          status: 'insufficient data' as Status,
          value: `${c.metrics.retries} retries (< ${MIN_RETRIES_FOR_EFFICIENCY})${e === null ? '' : `, ${e.toFixed(2)}`}`,
        };
      }
      const status: Status = e !== null && e >= 0.9 ? 'met' : 'missed';
      return {
        scenario,
        scenarioName: nameOf(scenario),
        status,
        value: `${e?.toFixed(3)} (${c.metrics.successfulRetries}/${c.metrics.retries})`,
        ...(status === 'missed' ? { why: wastedWhy(c) } : {}),
      };
    });
    checks.push({
      key: 'efficiency',
      target: 'Retry efficiency ≥ 0.9 on every scenario',
      results,
      status: overall(results.map((r) => r.status)),
    });
  }

  {
    const results = scenarios.map((scenario) => {
      const c = cell(cells, scenario, MCP);
      const r = c.metrics.mttfRatio;
      if (r === null) {
        return {
          scenario,
          scenarioName: nameOf(scenario),
          status: 'insufficient data' as Status,
          value: 'no non-retryable failure',
        };
      }
      const status: Status = r <= 1.1 ? 'met' : 'missed';
      return {
        scenario,
        scenarioName: nameOf(scenario),
        status,
        value: `${r >= 10 ? r.toFixed(1) : r.toFixed(3)}× (${seconds(c.metrics.mttfNonRetryableMs ?? 0)} vs ${seconds(c.metrics.singleAttemptMs ?? 0)})`,
        ...(status === 'missed' ? { why: mttfWhy(c) } : {}),
      };
    });
    checks.push({
      key: 'mttf',
      target: "MTTF for non-retryable failures ≤ 1.1× a single attempt's latency",
      results,
      status: overall(results.map((r) => r.status)),
    });
  }

  {
    const m = cell(cells, 'outage', MCP);
    const n = cell(cells, 'outage', 'naive');
    const share = n.metrics.requestsWhileDown ? m.metrics.requestsWhileDown / n.metrics.requestsWhileDown : 0;
    const status: Status = share <= 0.1 ? 'met' : 'missed';
    checks.push({
      key: 'outage-requests',
      target: "Hard outage: ≤ 10% of the naive loop's requests reach the down endpoint",
      results: [
        {
          scenario: 'outage',
          scenarioName: nameOf('outage'),
          status,
          value: `${m.metrics.requestsWhileDown} vs ${n.metrics.requestsWhileDown} requests (${pct(share)})`,
        },
      ],
      status,
    });
  }

  {
    const results = scenarios.map((scenario) => {
      const c = cell(cells, scenario, MCP);
      const o = cell(cells, scenario, 'oracle');
      const gap = o.metrics.successRate - c.metrics.successRate;
      const status: Status = gap <= 0.01 ? 'met' : 'missed';
      return {
        scenario,
        scenarioName: nameOf(scenario),
        status,
        value: `${pct(c.metrics.successRate, 2)} vs ${pct(o.metrics.successRate, 2)} (${gap > 0 ? '−' : '+'}${(100 * Math.abs(gap)).toFixed(2)} pp)`,
        ...(status === 'missed'
          ? {
              why: `${c.metrics.calls - c.metrics.succeeded - (o.metrics.calls - o.metrics.succeeded)} more failed calls than the oracle; mcp-resilience's failed calls by reason: ${failureReasons(c)}.`,
            }
          : {}),
      };
    });
    checks.push({
      key: 'oracle-success',
      target: "Success rate within 1 percentage point of the oracle's, on every scenario",
      results,
      status: overall(results.map((r) => r.status)),
    });
  }

  return checks;
}
