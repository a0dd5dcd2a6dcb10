/*
 * The lone agent across outage lengths (issue #18): one sequential agent, one outage of a given length, placed at a
 * different phase against the agent's calls in each seed. Virtual time, exact: it tells at which outage lengths a
 * policy completes fewer calls, or succeeds in fewer, than the naive loop, and what each sends into the down
 * endpoint. `npm run bench:lone-sweep -w packages/bench` prints it per fault and writes docs/benchmarks.md §6
 * (`loneAgentSweepRun.ts`; `npm run bench` runs it too).
 */
import type { FaultKind } from './faults.js';
import { LONE_AGENT_DEADLINE_MS, LONE_AGENT_NO_DEADLINE_LIMIT_MS, LONE_AGENT_THINK_MS } from './loneAgent.js';
import { recordSequence, type ScenarioSpec } from './scenarios.js';
import { type Policy, simulate } from './simulate.js';

/** The outage lengths swept, ms: blips, restarts and deploys, up to the 2 min where the idle cap takes over. */
export const SWEEP_OUTAGES_MS = [
  3_000, 5_000, 8_000, 12_000, 15_000, 20_000, 25_000, 30_000, 40_000, 45_000, 60_000, 75_000, 90_000,
  120_000,
] as const;
/** Seeds per cell: each places the outage at another phase (within two think times) against the agent's calls. */
export const SWEEP_SEEDS = 12;
/** Up before the outage (the endpoint healthy, the breaker closed) and after it (every policy recovers). */
const BEFORE_MS = 20_000;
const AFTER_MS = 60_000;

/** One sweep scenario: an outage of `outageMs` (fault `fault`), without a deadline or with the 10 s one. */
export function sweepScenario(outageMs: number, fault: FaultKind, deadline: boolean): ScenarioSpec {
  const kind = fault === 'connection_refused' ? 'refused' : '503';
  return {
    key: `sweep-${outageMs / 1000}s-${kind}${deadline ? '-deadline' : ''}`,
    name: `lone agent, one ${outageMs / 1000} s outage (${kind})${deadline ? ', 10 s deadline' : ''}`,
    description: `one agent, think ${LONE_AGENT_THINK_MS / 1000} s; up ${BEFORE_MS / 1000} s, down ${outageMs / 1000} s, up ${AFTER_MS / 1000} s`,
    durationMs: BEFORE_MS + outageMs + AFTER_MS,
    callEveryMs: LONE_AGENT_THINK_MS,
    deadlineMs: deadline ? LONE_AGENT_DEADLINE_MS : LONE_AGENT_NO_DEADLINE_LIMIT_MS,
    ...(deadline ? {} : { withoutDeadline: true }),
    agent: { thinkMs: LONE_AGENT_THINK_MS, shape: 'recovering' },
    intrinsic: {},
    noise: {},
    segments: (random) => {
      const from = Math.round(BEFORE_MS + random() * 2 * LONE_AGENT_THINK_MS);
      return [{ from, to: from + outageMs, state: { kind: 'down', fault } }];
    },
  };
}

/** Every length, both faults (refused, 503), without and with a deadline. */
export const SWEEP_SCENARIOS: readonly ScenarioSpec[] = SWEEP_OUTAGES_MS.flatMap((ms) =>
  (['connection_refused', 'unavailable_503_html'] as const).flatMap((fault) =>
    [false, true].map((deadline) => sweepScenario(ms, fault, deadline)),
  ),
);

/** One policy on one sweep scenario, seeds pooled: calls completed and succeeded in the window, requests while down. */
export interface SweepCount {
  readonly completed: number;
  readonly succeeded: number;
  readonly requestsWhileDown: number;
  /** Seeds in which the policy succeeded in fewer calls than the naive loop (0 for the naive loop itself). */
  readonly seedsBelowNaive?: number;
}

export interface SweepRow {
  readonly scenario: ScenarioSpec;
  /** By policy key. */
  readonly counts: Readonly<Record<string, SweepCount>>;
}

/** Runs `policies` (the naive loop first) on every sweep scenario. */
export async function runSweep(
  policies: readonly Policy[],
  scenarios: readonly ScenarioSpec[] = SWEEP_SCENARIOS,
  seeds = SWEEP_SEEDS,
): Promise<SweepRow[]> {
  const rows: SweepRow[] = [];
  for (const scenario of scenarios) {
    const perSeed: Record<string, SweepCount[]> = {};
    for (let seed = 1; seed <= seeds; seed++) {
      const sequence = recordSequence(scenario, seed);
      for (const policy of policies) {
        const { calls } = await simulate(sequence, policy);
        const inWindow = calls.filter((c) => c.end <= scenario.durationMs);
        perSeed[policy.key] ??= [];
        perSeed[policy.key]!.push({
          completed: inWindow.length,
          succeeded: inWindow.filter((c) => c.ok).length,
          requestsWhileDown: calls.reduce((n, c) => n + c.attempts.filter((a) => a.down).length, 0),
        });
      }
    }
    rows.push({ scenario, counts: pool(perSeed, policies[0]!.key) });
  }
  return rows;
}

function pool(perSeed: Record<string, SweepCount[]>, naiveKey: string): Record<string, SweepCount> {
  const naive = perSeed[naiveKey] ?? [];
  const sum = (xs: readonly SweepCount[], k: keyof SweepCount) => xs.reduce((a, x) => a + (x[k] ?? 0), 0);
  return Object.fromEntries(
    Object.entries(perSeed).map(([key, xs]) => [
      key,
      {
        completed: sum(xs, 'completed'),
        succeeded: sum(xs, 'succeeded'),
        requestsWhileDown: sum(xs, 'requestsWhileDown'),
        seedsBelowNaive: xs.filter((x, i) => x.succeeded < (naive[i]?.succeeded ?? 0)).length,
      },
    ]),
  );
}

/** The sweep as a Markdown table: `policy` against the naive loop (and the oracle), a mark where it completes or succeeds in fewer. */
export function renderSweep(
  rows: readonly SweepRow[],
  policy: string,
  naive = 'naive',
  oracle = 'oracle',
): string {
  const lines = [
    `| scenario | calls completed (naive / ${policy} / oracle) | succeeded | requests into the down endpoint (naive / ${policy}) | seeds where ${policy} succeeds in fewer | fewer than naive |`,
    '| --- | --: | --: | --: | --: | --- |',
  ];
  for (const { scenario, counts } of rows) {
    const n = counts[naive]!;
    const p = counts[policy]!;
    const o = counts[oracle];
    const three = (k: 'completed' | 'succeeded') => `${n[k]} / ${p[k]} / ${o?.[k] ?? '—'}`;
    const fewer = [p.completed < n.completed ? 'completed' : '', p.succeeded < n.succeeded ? 'succeeded' : '']
      .filter(Boolean)
      .join(', ');
    lines.push(
      `| ${scenario.name} | ${three('completed')} | ${three('succeeded')} | ${n.requestsWhileDown} / ${p.requestsWhileDown} | ${p.seedsBelowNaive ?? 0} | ${fewer || '—'} |`,
    );
  }
  return lines.join('\n');
}

/** The sweep's rows of one length and deadline (both faults), summed: the unit of docs/benchmarks.md §6. */
function byLength(rows: readonly SweepRow[], ms: number, deadline: boolean) {
  const keys = ['refused', '503'].map((kind) => `sweep-${ms / 1000}s-${kind}${deadline ? '-deadline' : ''}`);
  const of = rows.filter((r) => keys.includes(r.scenario.key));
  const sum = (policy: string, k: 'completed' | 'succeeded' | 'requestsWhileDown') =>
    of.reduce((n, r) => n + (r.counts[policy]?.[k] ?? 0), 0);
  return of.length ? { sum } : undefined;
}

/**
 * docs/benchmarks.md §6: per outage length and deadline (both faults pooled), the calls `policy` succeeds in
 * against the naive loop and the oracle, the calls completed, and the requests into the down endpoint; then
 * where, and by how many calls, it succeeds in fewer than the loop.
 */
export function renderLoneSweepSection(
  rows: readonly SweepRow[],
  policy: string,
  seeds = SWEEP_SEEDS,
): string {
  const lines = [
    `| outage | deadline | succeeded (naive / ${policy} / oracle) | completed (naive / ${policy}) | requests into the down endpoint (naive / ${policy}) |`,
    '| --: | --- | --: | --: | --: |',
  ];
  const total = { below: 0, rows: 0, fewer: 0, net: 0, completedBelow: 0, naiveRequests: 0, requests: 0 };
  for (const ms of SWEEP_OUTAGES_MS) {
    for (const deadline of [false, true]) {
      const g = byLength(rows, ms, deadline);
      if (!g) continue;
      const [n, p] = [g.sum('naive', 'succeeded'), g.sum(policy, 'succeeded')];
      total.rows++;
      total.net += p - n;
      total.naiveRequests += g.sum('naive', 'requestsWhileDown');
      total.requests += g.sum(policy, 'requestsWhileDown');
      if (g.sum(policy, 'completed') < g.sum('naive', 'completed')) total.completedBelow++;
      if (p < n) {
        total.below++;
        total.fewer += n - p;
      }
      const mark = p < n ? ` (**−${n - p}**)` : '';
      lines.push(
        `| ${ms / 1000} s | ${deadline ? '10 s' : 'none'} | ${n} / ${p}${mark} / ${g.sum('oracle', 'succeeded')} | ${g.sum('naive', 'completed')} / ${g.sum(policy, 'completed')} | ${g.sum('naive', 'requestsWhileDown')} / ${g.sum(policy, 'requestsWhileDown')} |`,
      );
    }
  }
  return [
    '## 6. The lone agent across outage lengths (issue #18)',
    '',
    `One agent (think time ${LONE_AGENT_THINK_MS / 1000} s between calls) meets one outage (connection refused or`,
    `503, pooled) of each length, placed at another phase against its calls in each of ${seeds} seeds, with 20 s up`,
    'before and 60 s after; without a deadline, and with a 10 s one. The calls succeeded in the window compare like',
    'with like (every policy has the same window); the oracle knows the schedule. Virtual time, exact; `npm run',
    'bench:lone-sweep -w packages/bench` prints the same per fault.',
    '',
    lines.join('\n'),
    '',
    `${policy} succeeds in fewer calls than the naive loop in ${total.below} of ${total.rows} rows, ${total.fewer} calls in all ` +
      `(${total.net >= 0 ? '+' : '−'}${Math.abs(total.net)} over the sweep), and sends the down endpoint ${total.requests} requests ` +
      `against the loop's ${total.naiveRequests}; it completes fewer calls than the loop in ${total.completedBelow} rows. ` +
      'Where it succeeds in fewer, its calls fail fast while the breaker is open, and its probe, a quarter of the ' +
      "outage's age after the last one, sees the recovery later than the loop's retries, at most 16 s apart (4.5 s with " +
      "the deadline): probing that often for the whole outage would cost a dead server about the loop's requests (§5).",
  ].join('\n');
}
