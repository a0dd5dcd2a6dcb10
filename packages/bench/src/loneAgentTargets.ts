import type { QualityCell } from './quality.js';
import type { LoneAgent } from './scenarios.js';
import { failFastTradeOff, failureReasons, type Status, successFloor, type TargetCheck } from './targets.js';

/** Issue #18's targets for the lone agent and for the time that failing costs, on the defaults. */
export const LONE_TARGETS = {
  /** Dead server: requests into it ≤ 10% of the naive loop's … */
  deadDownShare: 0.1,
  /** … total time of failed calls ≤ 10% of the naive loop's … */
  deadFailedTimeShare: 0.1,
  /** … median failed call ≤ 50 ms once the breaker has opened … */
  deadFailedP50Ms: 50,
  /** … calls completed in the window ≥ 90% of the oracle's. */
  deadCompletedShare: 0.9,
  /** Blips and 20 s outages, with a deadline: success ≥ the oracle's − 2 pp (and always ≥ the naive loop's). */
  recoveringVsOraclePp: 2,
  /** Every fleet scenario: time of failed calls ≤ 50% of the naive loop's. */
  failedTimeShare: 0.5,
} as const;

/** What checkTargets needs to know of a scenario. */
export interface TargetScenario {
  readonly key: string;
  readonly name: string;
  readonly agent?: LoneAgent;
  readonly withoutDeadline?: boolean;
  readonly durationMs?: number;
}

type Result = TargetCheck['results'][number];
type Push = (key: string, target: string, results: Result[]) => void;
type CellOf = (scenario: string, policy: string) => QualityCell;
/** The fail-fast what-if's cell of a scenario, when the run has one. */
type FailFastOf = (scenario: string) => QualityCell | undefined;

const MCP = 'mcp-resilience';
const pct = (x: number, digits = 1) => `${(100 * x).toFixed(digits)}%`;
const seconds = (ms: number) =>
  !Number.isFinite(ms) ? '—' : ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;

/** Why the calls that failed cost what they cost: how many, how long each, and how they ended. */
function failedWhy(c: QualityCell): string {
  const m = c.metrics;
  return `${m.failedCalls} calls failed, median ${seconds(m.failedP50Ms)} each (p95 ${seconds(m.failedP95Ms)}); they ended as: ${failureReasons(c)}`;
}

function result(s: TargetScenario, ok: boolean, value: string, why: () => string): Result {
  const status: Status = ok ? 'met' : 'missed';
  return {
    scenario: s.key,
    scenarioName: s.name,
    status,
    value,
    ...(ok ? {} : { why: why() }),
  };
}

/** Why a lone agent sent the dead server what it sent: first requests and retries, and how far apart. */
function downWhy(s: TargetScenario, c: QualityCell, n: QualityCell): string {
  const m = c.metrics;
  const runs = Math.max(1, c.successBySeed.length);
  const every = (requests: number) =>
    s.durationMs && requests > 0 ? seconds((s.durationMs * runs) / requests) : '—';
  const split =
    c.extra.downBeforeOpen === undefined
      ? ''
      : ` ${c.extra.downBeforeOpen} before the breaker opened (the failures in a row that open it) and ${c.extra.downAfterOpen ?? 0} after it (its probes, one per break: soon while calls wait for a verdict, else when the outage has aged by a quarter, at most \`breakerIdleMaxBreakMs\` apart; a longer cap sends fewer at the price of recoveries seen later: §5 measures the trade-off, and no cap gets both).`;
  return `${m.requestsWhileDown} requests into the dead server (${m.firstRequestsWhileDown} first requests of calls: before the breaker opened, or let through as its probes; ${m.requestsWhileDown - m.firstRequestsWhileDown} retries), one every ${every(m.requestsWhileDown)} of the window on average; the target allows one every ${every(LONE_TARGETS.deadDownShare * n.metrics.requestsWhileDown)} (the naive loop: one every ${every(n.metrics.requestsWhileDown)}).${split}`;
}

/** The dead-server targets: requests into it, time of failed calls, failing fast once open, not hanging. */
function deadServer(dead: readonly TargetScenario[], cellOf: CellOf, push: Push) {
  const T = LONE_TARGETS;
  const each = (f: (s: TargetScenario, c: QualityCell, n: QualityCell, o: QualityCell) => Result) =>
    dead.map((s) => f(s, cellOf(s.key, MCP), cellOf(s.key, 'naive'), cellOf(s.key, 'oracle')));
  push(
    'lone-dead-requests',
    `Lone agent, dead server: requests into it ≤ ${pct(T.deadDownShare, 0)} of the naive loop's`,
    each((s, c, n) => {
      const share = c.metrics.requestsWhileDown / Math.max(1, n.metrics.requestsWhileDown);
      return result(
        s,
        share <= T.deadDownShare,
        `${c.metrics.requestsWhileDown} vs ${n.metrics.requestsWhileDown} (${pct(share)})`,
        () => downWhy(s, c, n),
      );
    }),
  );
  push(
    'lone-dead-failed-time',
    `Lone agent, dead server: total time of failed calls ≤ ${pct(T.deadFailedTimeShare, 0)} of the naive loop's`,
    each((s, c, n) => {
      const share = c.metrics.failedTimeMs / Math.max(1, n.metrics.failedTimeMs);
      return result(
        s,
        share <= T.deadFailedTimeShare,
        `${seconds(c.metrics.failedTimeMs)} vs ${seconds(n.metrics.failedTimeMs)} (${pct(share)})`,
        () => `${failedWhy(c)}.`,
      );
    }),
  );
  push(
    'lone-dead-fast',
    `Lone agent, dead server: median failed call ≤ ${T.deadFailedP50Ms} ms once the breaker has opened`,
    each((s, c) => {
      const a = c.afterBreakerOpened;
      if (!a || a.failedCalls === 0)
        return result(s, false, 'the breaker never opened', () => `${failedWhy(c)}.`);
      return result(
        s,
        a.failedP50Ms <= T.deadFailedP50Ms,
        `${seconds(a.failedP50Ms)} over ${a.failedCalls} calls`,
        () =>
          `after the breaker opened, calls still waited at it (or spent their attempts) instead of failing at once; ${failedWhy(c)}.`,
      );
    }),
  );
  push(
    'lone-dead-completed',
    `Lone agent, dead server: calls completed in the window (answered or failed) ≥ ${pct(T.deadCompletedShare, 0)} of the oracle's`,
    each((s, c, _n, o) => {
      const share = c.metrics.completedInWindow / Math.max(1, o.metrics.completedInWindow);
      return result(
        s,
        share >= T.deadCompletedShare,
        `${c.metrics.completedInWindow} vs ${o.metrics.completedInWindow} (${pct(share)})`,
        () => `the agent hangs on failing calls (the oracle fails them at once): ${failedWhy(c)}.`,
      );
    }),
  );
}

/** Blips and short outages: the gate's gains must stay (success ≥ naive; with a deadline ≥ oracle − 2 pp). */
function recovering(list: readonly TargetScenario[], cellOf: CellOf, push: Push) {
  push(
    'lone-recovering-success',
    `Lone agent, blips and 20 s outages: success ≥ the naive loop's; with a deadline, also ≥ the oracle's − ${LONE_TARGETS.recoveringVsOraclePp} pp`,
    list.map((s) => {
      const c = cellOf(s.key, MCP);
      const n = cellOf(s.key, 'naive');
      const o = cellOf(s.key, 'oracle');
      const vsNaive = 100 * (c.metrics.successRate - n.metrics.successRate);
      const vsOracle = 100 * (c.metrics.successRate - o.metrics.successRate);
      const okNaive = vsNaive >= -1e-9;
      const okOracle = s.withoutDeadline || vsOracle >= -LONE_TARGETS.recoveringVsOraclePp - 1e-9;
      const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)} pp`;
      return result(
        s,
        okNaive && okOracle,
        `${pct(c.metrics.successRate, 2)}; naive ${pct(n.metrics.successRate, 2)} (${signed(vsNaive)}), oracle ${pct(o.metrics.successRate, 2)} (${signed(vsOracle)})`,
        () =>
          `${okNaive ? '' : 'below the naive loop; '}${okOracle ? '' : 'below the oracle; '}${failedWhy(c)}.`,
      );
    }),
  );
}

/** Every fleet scenario: the calls that fail anyway cost at most half of what they cost the naive loop. */
function failedTime(fleet: readonly TargetScenario[], cellOf: CellOf, push: Push, failFastOf: FailFastOf) {
  push(
    'failed-time',
    `Time of failed calls ≤ ${pct(LONE_TARGETS.failedTimeShare, 0)} of the naive loop's, on every fleet scenario`,
    fleet.map((s) => {
      const c = cellOf(s.key, MCP);
      const n = cellOf(s.key, 'naive');
      const shareOf = (x: QualityCell) =>
        n.metrics.failedTimeMs > 0 ? x.metrics.failedTimeMs / n.metrics.failedTimeMs : 0;
      const meets = (x: QualityCell) => shareOf(x) <= LONE_TARGETS.failedTimeShare;
      const tradeOff = () => {
        const ff = failFastOf(s.key);
        if (!ff) return '';
        const floor = successFloor(n, cellOf(s.key, 'oracle'));
        return failFastTradeOff(
          ff,
          floor,
          meets(ff),
          `the failed calls cost ${pct(shareOf(ff))} of the loop's`,
        );
      };
      return result(
        s,
        c.metrics.failedTimeMs <= LONE_TARGETS.failedTimeShare * n.metrics.failedTimeMs,
        `${seconds(c.metrics.failedTimeMs)} vs ${seconds(n.metrics.failedTimeMs)} (${pct(shareOf(c))})`,
        () => `${failedWhy(c)}.${tradeOff()}`,
      );
    }),
  );
}

/** Issue #18's targets, pushed into checkTargets' list. */
export function loneAgentTargets(
  scenarios: readonly TargetScenario[],
  cellOf: CellOf,
  push: Push,
  failFastOf: FailFastOf = () => undefined,
) {
  const dead = scenarios.filter((s) => s.agent?.shape === 'dead');
  const rec = scenarios.filter((s) => s.agent?.shape === 'recovering');
  if (dead.length) deadServer(dead, cellOf, push);
  if (rec.length) recovering(rec, cellOf, push);
  failedTime(
    scenarios.filter((s) => !s.agent),
    cellOf,
    push,
    failFastOf,
  );
}
