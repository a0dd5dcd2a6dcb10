import { RECOVERED_LATENCY_FACTOR, recovered } from './goodput.js';
import { loneAgentTargets, type TargetScenario } from './loneAgentTargets.js';
import type { OverheadResult } from './overhead.js';
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
/** Design §2: with fewer retries than this, efficiency is "insufficient data" in the tables. */
export const MIN_RETRIES_FOR_EFFICIENCY = 20;

/** Issue #11's targets for the defaults, on every scenario, seeds pooled. */
export const TARGETS = {
  /** Success ≥ the naive loop's − 0.5 pp … */
  successVsNaivePp: 0.5,
  /** … and ≥ the oracle's − 2 pp. */
  successVsOraclePp: 2,
  /** Requests to a down endpoint ≤ 10% of the naive loop's … */
  downShare: 0.1,
  /** … where the naive loop sends at least this many. */
  downMinNaive: 50,
  /** Retry efficiency ≥ 0.8 where there are at least 30 retries … */
  efficiency: 0.8,
  efficiencyMinRetries: 30,
  /** … and ≥ 0.9 on the production mix. */
  efficiencyProduction: 0.9,
  /** Wasted retries on the production mix ≥ 95% fewer than naive. */
  wastedReduction: 0.95,
  /** MTTF non-retryable, calls whose first request got the error, ≤ 1.1× one attempt. */
  mttfRatio: 1.1,
  /** After the overload spike, success ≥ 95% of the rate before it (else: collapse). */
  recoveredShare: 0.95,
  /** Success-path overhead with a timeoutMs deadline ≤ 2 µs per call. */
  deadlineOverheadNs: 2_000,
} as const;

const pct = (x: number, digits = 1) => `${(100 * x).toFixed(digits)}%`;
const seconds = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);

const optionalCell = (cells: readonly QualityCell[], scenario: string, policy: string) =>
  cells.find((c) => c.scenario === scenario && c.policy === policy);

function cell(cells: readonly QualityCell[], scenario: string, policy: string): QualityCell {
  const found = optionalCell(cells, scenario, policy);
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
    [w.overloaded, 'were rejected by the overloaded server'],
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
      `${n.waitedBeforeFirstRequest} waited before their first request (at an open breaker, or for an announced Retry-After; ${seconds(n.waitedMs / n.waitedBeforeFirstRequest)} on average)`,
    );
  }
  if (n.retriedNonRetryable) parts.push(`${n.retriedNonRetryable} retried the non-retryable error`);
  const fr = c.metrics.mttfFirstRequestRatio;
  return `${parts.join('; ')}. ${fr === null ? '' : `Over the calls whose first request got the non-retryable error, the ratio is ${fr.toFixed(2)}×.`}`;
}

/** The what-if policy that never waits at an open breaker (`breakerWait: false`): the other side of every wait. */
export const FAIL_FAST = 'mcp-resilience:fail-fast';

/** The success target's floor on a scenario: the naive loop's − 0.5 pp or the oracle's − 2 pp, the higher. */
export function successFloor(naive: QualityCell, oracle: QualityCell): number {
  return Math.max(
    naive.metrics.successRate - TARGETS.successVsNaivePp / 100,
    oracle.metrics.successRate - TARGETS.successVsOraclePp / 100,
  );
}

/**
 * A target the defaults miss because calls wait at the breaker, against the fail-fast what-if `ff`: whether not
 * waiting meets it (`meets`, `value` its figure), and at what success against `floor`.
 */
export function failFastTradeOff(ff: QualityCell, floor: number, meets: boolean, value: string): string {
  const success = pct(ff.metrics.successRate, 2);
  if (!meets) return ` Failing fast does not meet it either (\`breakerWait: false\`, what-if: ${value}).`;
  if (ff.metrics.successRate >= floor - 1e-9) {
    return ` Failing fast would meet it here (\`breakerWait: false\`, what-if: ${value}) at ${success} success, within the success target.`;
  }
  return ` Failing fast would meet it and lose calls: with \`breakerWait: false\` (what-if) ${value}, but success falls to ${success}, below the ${pct(floor, 2)} the success target allows here. Nothing tells a call that will fail from one that will succeed before the server answers it: the wait that delays the one saves the other.`;
}

/** The oracle's bound, when it is itself below a target: the target is out of reach for any policy. */
function oracleEfficiencyNote(o: QualityCell, threshold: number): string {
  const e = o.metrics.retryEfficiency;
  return e !== null && e < threshold
    ? ` No policy can reach it here: the oracle, which knows which requests will fail, reaches ${e.toFixed(2)} (independent failures: a retry fails as often as a first request).`
    : '';
}

type Result = TargetCheck['results'][number];

/** The MTTF target on one scenario; a miss is set against the fail-fast what-if (when `cells` has it). */
function mttfResult(cells: readonly QualityCell[], scenario: string, scenarioName: string): Result {
  const c = cell(cells, scenario, MCP);
  const r = c.metrics.mttfFirstRequestRatio;
  if (r === null) return { scenario, scenarioName, status: 'insufficient data', value: 'no such call' };
  const status: Status = r <= TARGETS.mttfRatio ? 'met' : 'missed';
  const tradeOff = () => {
    const ff = optionalCell(cells, scenario, FAIL_FAST);
    if (!ff) return '';
    const f = ff.metrics.mttfFirstRequestRatio;
    const floor = successFloor(cell(cells, scenario, 'naive'), cell(cells, scenario, 'oracle'));
    return failFastTradeOff(
      ff,
      floor,
      f !== null && f <= TARGETS.mttfRatio,
      `${f === null ? '—' : f.toFixed(2)}×`,
    );
  };

  const sentAtOnce = c.metrics.mttfSentAtOnceRatio;
  const all = c.metrics.mttfRatio;
  return {
    scenario,
    scenarioName,
    status,
    value: `${r >= 10 ? r.toFixed(1) : r.toFixed(3)}× (of those sent at once: ${sentAtOnce === null ? '—' : `${sentAtOnce.toFixed(2)}×`}; all non-retryable failures: ${all === null ? '—' : `${all.toFixed(2)}×`})`,
    ...(status === 'missed' ? { why: `${mttfWhy(c)}${tradeOff()}` } : {}),
  };
}

/**
 * The issue's targets for mcp-resilience's defaults, checked against the pooled results (and the overhead run).
 * `cells` may hold the what-if's too: a miss that waiting causes is set against the fail-fast one (`FAIL_FAST`).
 */
export function checkTargets(
  cells: readonly QualityCell[],
  scenarioList: readonly TargetScenario[],
  overhead?: OverheadResult,
): TargetCheck[] {
  const checks: TargetCheck[] = [];
  // Issue #11's targets apply to the fleet scenarios; the lone agent has issue #18's own (loneAgentTargets).
  const scenarios = scenarioList.filter((s) => !s.agent).map((s) => s.key);
  const nameOf = (key: string) => scenarioList.find((s) => s.key === key)?.name ?? key;
  const push = (key: string, target: string, results: Result[]) =>
    checks.push({ key, target, results, status: overall(results.map((r) => r.status)) });

  push(
    'success',
    `Success ≥ the naive loop's − ${TARGETS.successVsNaivePp} pp and ≥ the oracle's − ${TARGETS.successVsOraclePp} pp, on every scenario`,
    scenarios.map((scenario) => {
      const c = cell(cells, scenario, MCP);
      const n = cell(cells, scenario, 'naive');
      const o = cell(cells, scenario, 'oracle');
      const vsNaive = 100 * (c.metrics.successRate - n.metrics.successRate);
      const vsOracle = 100 * (c.metrics.successRate - o.metrics.successRate);
      const okNaive = vsNaive >= -TARGETS.successVsNaivePp - 1e-9;
      const okOracle = vsOracle >= -TARGETS.successVsOraclePp - 1e-9;
      const status: Status = okNaive && okOracle ? 'met' : 'missed';
      const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)} pp`;
      return {
        scenario,
        scenarioName: nameOf(scenario),
        status,
        value: `${pct(c.metrics.successRate, 2)}; naive ${pct(n.metrics.successRate, 2)} (${signed(vsNaive)}), oracle ${pct(o.metrics.successRate, 2)} (${signed(vsOracle)})`,
        ...(status === 'missed'
          ? {
              why: `${okNaive ? '' : 'below the naive loop; '}${okOracle ? '' : 'below the oracle; '}failed calls by reason: ${failureReasons(c)}; ${c.extra.failedWithoutRequestSalvageable ?? 0} calls failed without a request that the oracle could have completed.`,
            }
          : {}),
      };
    }),
  );

  push(
    'down-requests',
    `Requests reaching a down endpoint ≤ ${pct(TARGETS.downShare, 0)} of the naive loop's, on every scenario where the naive loop sends ≥ ${TARGETS.downMinNaive}`,
    scenarios.flatMap((scenario) => {
      const c = cell(cells, scenario, MCP);
      const n = cell(cells, scenario, 'naive');
      if (n.metrics.requestsWhileDown < TARGETS.downMinNaive) return [];
      const share = c.metrics.requestsWhileDown / n.metrics.requestsWhileDown;
      const status: Status = share <= TARGETS.downShare ? 'met' : 'missed';
      return [
        {
          scenario,
          scenarioName: nameOf(scenario),
          status,
          value: `${c.metrics.requestsWhileDown} vs ${n.metrics.requestsWhileDown} (${pct(share)})`,
          ...(status === 'missed'
            ? {
                why: `${c.metrics.firstRequestsWhileDown} of the ${c.metrics.requestsWhileDown} were first requests of calls that arrived while the endpoint was down, sent before the breaker had opened or as its probes (the naive loop sent ${n.metrics.firstRequestsWhileDown} such first requests: a policy that sends each new call at once cannot avoid them; only holding new calls after the first failures can); ${c.metrics.requestsWhileDown - c.metrics.firstRequestsWhileDown} were retries.`,
              }
            : {}),
        },
      ];
    }),
  );

  push(
    'efficiency',
    `Retry efficiency ≥ ${TARGETS.efficiency} on every scenario with ≥ ${TARGETS.efficiencyMinRetries} retries; ≥ ${TARGETS.efficiencyProduction} on the production mix`,
    scenarios.map((scenario) => {
      const c = cell(cells, scenario, MCP);
      const o = cell(cells, scenario, 'oracle');
      const e = c.metrics.retryEfficiency;
      const threshold = scenario === 'production' ? TARGETS.efficiencyProduction : TARGETS.efficiency;
      if (c.metrics.retries < TARGETS.efficiencyMinRetries && scenario !== 'production') {
        return {
          scenario,
          scenarioName: nameOf(scenario),
          status: 'insufficient data' as Status,
          value: `${c.metrics.retries} retries (< ${TARGETS.efficiencyMinRetries})${e === null ? '' : `, ${e.toFixed(2)}`}`,
        };
      }
      const status: Status = e !== null && e >= threshold ? 'met' : 'missed';
      return {
        scenario,
        scenarioName: nameOf(scenario),
        status,
        value: `${e === null ? '—' : e.toFixed(3)} (${c.metrics.successfulRetries}/${c.metrics.retries}) vs ≥ ${threshold}`,
        ...(status === 'missed' ? { why: `${wastedWhy(c)}${oracleEfficiencyNote(o, threshold)}` } : {}),
      };
    }),
  );

  {
    const m = cell(cells, 'production', MCP);
    const n = cell(cells, 'production', 'naive');
    const reduction = n.metrics.wastedRetries ? 1 - m.metrics.wastedRetries / n.metrics.wastedRetries : 0;
    const status: Status = reduction >= TARGETS.wastedReduction ? 'met' : 'missed';
    push(
      'wasted-retries',
      `Production mix: ≥ ${pct(TARGETS.wastedReduction, 0)} fewer wasted retries than the naive loop`,
      [
        {
          scenario: 'production',
          scenarioName: nameOf('production'),
          status,
          value: `${m.metrics.wastedRetries} vs ${n.metrics.wastedRetries} (${pct(reduction)} fewer)`,
          ...(status === 'missed' ? { why: wastedWhy(m) } : {}),
        },
      ],
    );
  }

  push(
    'mttf',
    `MTTF non-retryable, over calls whose first request got the error, ≤ ${TARGETS.mttfRatio}× one attempt`,
    scenarios.map((scenario) => mttfResult(cells, scenario, nameOf(scenario))),
  );

  {
    const results: Result[] = [];
    for (const scenario of scenarios) {
      const c = cell(cells, scenario, MCP);
      const n = cell(cells, scenario, 'naive');
      if (!c.phases || !n.phases) continue;
      const goodput = (x: QualityCell) => x.phases!.reduce((sum, p) => sum + p.succeeded, 0);
      const after = (x: QualityCell) => x.phases!.find((p) => p.phase === 'after');
      const before = (x: QualityCell) => x.phases!.find((p) => p.phase === 'before');
      const back = recovered(c.phases, TARGETS.recoveredShare);
      const naiveBack = recovered(n.phases, TARGETS.recoveredShare);
      const more = c.metrics.succeeded >= n.metrics.succeeded;
      const status: Status = more && back ? 'met' : 'missed';
      const a = after(c);
      const b = before(c);
      const state = (x: QualityCell) => {
        const p = after(x);
        return `${pct(p?.successRate ?? Number.NaN)} succeed, median ${seconds(p?.p50Ms ?? Number.NaN)}`;
      };
      results.push({
        scenario,
        scenarioName: nameOf(scenario),
        status,
        value: `${c.metrics.succeeded} vs naive ${n.metrics.succeeded} successful calls (${goodput(c) >= goodput(n) ? '≥' : '<'}); after the spike ${state(c)} (before: ${pct(b?.successRate ?? Number.NaN)}, median ${seconds(b?.p50Ms ?? Number.NaN)}): ${back ? 'recovered' : 'not recovered'}; naive ${state(n)} (${naiveBack ? 'recovered' : 'collapsed'})`,
        ...(status === 'missed'
          ? {
              why: `${more ? '' : 'fewer successful calls than the naive loop; '}${back ? '' : `not recovered: after the spike ${state(c)}, against ${pct(b?.successRate ?? Number.NaN)} and a median of ${seconds(b?.p50Ms ?? Number.NaN)} before it${(a?.p50Ms ?? 0) > RECOVERED_LATENCY_FACTOR * (b?.p50Ms ?? 0) ? ' (a standing queue: calls still wait long after the load is back to what the server handled)' : ''}; `}requests rejected by the overloaded server: ${c.metrics.requestsOverloaded} (naive ${n.metrics.requestsOverloaded}); failed calls by reason: ${failureReasons(c)}.`,
            }
          : {}),
      });
    }
    if (results.length) {
      push(
        'overload',
        `Overload: goodput ≥ the naive loop's, and no collapse after the spike (after it, success ≥ ${pct(TARGETS.recoveredShare, 0)} of the rate before it and median latency ≤ ${RECOVERED_LATENCY_FACTOR}× the median before it)`,
        results,
      );
    }
  }

  loneAgentTargets(
    scenarioList,
    (scenario, policy) => cell(cells, scenario, policy),
    push,
    (scenario) => optionalCell(cells, scenario, FAIL_FAST),
  );

  if (overhead) {
    const row = (key: string) => overhead.rows.find((r) => r.key === key);
    const mcp = row('mcp-deadline');
    const ref = row('cockatiel-timeout');
    if (mcp && ref) {
      const status: Status = mcp.addedNs <= TARGETS.deadlineOverheadNs ? 'met' : 'missed';
      const ratio = ref.addedNs > 0 ? mcp.addedNs / ref.addedNs : Number.NaN;
      push(
        'overhead',
        `Success-path overhead with a \`timeoutMs\` deadline ≤ ${TARGETS.deadlineOverheadNs / 1000} µs per call (ratio to cockatiel timeout + retry + breaker, same run)`,
        [
          {
            scenario: 'overhead',
            scenarioName: 'overhead',
            status,
            value: `${(mcp.addedNs / 1000).toFixed(2)} µs added per call; cockatiel timeout + retry + breaker ${(ref.addedNs / 1000).toFixed(2)} µs: ratio ${ratio.toFixed(2)}× (the target is ${(TARGETS.deadlineOverheadNs / Math.max(1, ref.addedNs)).toFixed(2)}× on this run)`,
            ...(status === 'missed'
              ? {
                  why: `with \`timeoutMs\`, a call costs ${((mcp.addedNs - (row('mcp')?.addedNs ?? 0)) / 1000).toFixed(2)} µs more than without it (the deadline's timer and abort signals); the rest of the path costs ${((row('mcp')?.addedNs ?? 0) / 1000).toFixed(2)} µs.`,
                }
              : {}),
          },
        ],
      );
    }
  }

  return checks;
}
