/*
 * The idle probe cap's trade-off (issue #18; the middleware README, "The idle cap is a trade-off, measured"): for
 * each `breakerIdleMaxBreakMs`, the requests a lone agent sends a dead server (the bench's lone dead-server
 * scenarios, seeds pooled, without and with a 10 s deadline) against the naive loop's, and the successful calls of
 * the fleet benchmark's lone caller (N = 1, no store: one call every 1-3 s, a 10 s limit, 5 min dead, 60 s up
 * after) against the same caller with the naive loop, in the same run. Virtual time, exact. `npm run
 * bench:idle-cap -w packages/bench` prints it and writes docs/benchmarks.md §5 (`idleCapSweepRun.ts`).
 */
import { defaults } from '@mcp-resilience/middleware';
import { SEEDS as FLEET_SEEDS, runFleetRun, runNaiveLoneCaller } from './fleet.js';
import { mcpResilienceWith, naive } from './policies.js';
import { recordSequence, SCENARIOS, type ScenarioSpec } from './scenarios.js';
import { type Policy, simulate } from './simulate.js';

/** The caps swept, ms, the default (30 s) among them; the last is no cap within the 9.5 min outage. */
export const IDLE_CAPS_MS = [
  5_000, 10_000, 15_000, 30_000, 45_000, 60_000, 90_000, 240_000, 3_600_000,
] as const;
/** The lone dead-server scenarios of the bench (refused and 503, without and with a 10 s deadline). */
export const DEAD_SERVER_KEYS = [
  'lone-dead-refused',
  'lone-dead-refused-deadline',
  'lone-dead-503',
  'lone-dead-503-deadline',
] as const;
/** Seeds per lone scenario, as in `npm run bench`. */
export const LONE_SEEDS = 3;
/**
 * Seeds of the fleet column: four times §4's, as one run's successes depend on where the probe after the
 * recovery falls (at 16 seeds the pooled share moved by up to 3 points between two rules with the same cap).
 */
export const CAP_FLEET_SEEDS = 4 * FLEET_SEEDS;
/** How the fleet column was run, for the printout. */
export const FLEET_SEEDS_NOTE = `N = 1, no store, ${CAP_FLEET_SEEDS} seeds pooled`;

export interface IdleCapRow {
  /** `breakerIdleMaxBreakMs`; undefined: the naive loop (the reference). */
  readonly capMs?: number;
  /** Requests into the dead server, seeds pooled, by scenario key. */
  readonly requestsWhileDown: Readonly<Record<string, number>>;
  /** The fleet benchmark's lone caller, seeds pooled (for the naive loop: the same caller with the naive loop). */
  readonly fleet: { readonly successes: number; readonly calls: number };
}

/** Requests one policy sends into the dead server on each lone dead-server scenario, seeds pooled. */
async function deadServerRequests(policy: Policy, seeds: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const key of DEAD_SERVER_KEYS) {
    const spec = SCENARIOS.find((s) => s.key === key) as ScenarioSpec;
    counts[key] = 0;
    for (let seed = 1; seed <= seeds; seed++) {
      const { calls } = await simulate(recordSequence(spec, seed), policy);
      counts[key] += calls.reduce((n, c) => n + c.attempts.filter((a) => a.down).length, 0);
    }
  }
  return counts;
}

/** The fleet benchmark's lone caller (N = 1, no store) with `capMs`, or the naive loop (undefined), seeds pooled. */
async function fleetLoneCaller(capMs: number | undefined, seeds: number) {
  let successes = 0;
  let calls = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const run =
      capMs === undefined
        ? await runNaiveLoneCaller(seed)
        : await runFleetRun(1, false, seed, { breakerIdleMaxBreakMs: capMs });
    successes += run.successes;
    calls += run.calls;
  }
  return { successes, calls };
}

/** The naive loop's row, then one row per cap (the defaults otherwise). */
export async function runIdleCapSweep(
  caps: readonly number[] = IDLE_CAPS_MS,
  seeds = LONE_SEEDS,
  fleetSeeds = CAP_FLEET_SEEDS,
): Promise<IdleCapRow[]> {
  const rows: IdleCapRow[] = [
    {
      requestsWhileDown: await deadServerRequests(naive, seeds),
      fleet: await fleetLoneCaller(undefined, fleetSeeds),
    },
  ];
  for (const capMs of caps) {
    const policy = mcpResilienceWith({ breakerIdleMaxBreakMs: capMs }, `cap-${capMs}`, 'cap', 'cap');
    rows.push({
      capMs,
      requestsWhileDown: await deadServerRequests(policy, seeds),
      fleet: await fleetLoneCaller(capMs, fleetSeeds),
    });
  }
  return rows;
}

const pct = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : '—');

/**
 * The sweep as a Markdown table: requests (and their share of the naive loop's), the fleet caller's successful
 * calls (the like-for-like figure: every policy has the same window; its share of its own calls beside it).
 */
export function renderIdleCapSweep(rows: readonly IdleCapRow[]): string {
  const naiveRow = rows.find((r) => r.capMs === undefined);
  const header = DEAD_SERVER_KEYS.map((k) => `${k} (naive ${naiveRow?.requestsWhileDown[k] ?? '—'})`);
  const lines = [
    `| breakerIdleMaxBreakMs | ${header.join(' | ')} | fleet N = 1: successful calls (naive ${naiveRow?.fleet.successes ?? '—'}) |`,
    `| --: | ${DEAD_SERVER_KEYS.map(() => '--:').join(' | ')} | --: |`,
  ];
  for (const row of rows) {
    if (row.capMs === undefined) continue;
    const cells = DEAD_SERVER_KEYS.map((k) => {
      const n = row.requestsWhileDown[k] ?? 0;
      return `${n} (${pct(n, naiveRow?.requestsWhileDown[k] ?? 0)})`;
    });
    const { successes, calls } = row.fleet;
    const fleet = `${successes} (${pct(successes, naiveRow?.fleet.successes ?? 0)}; ${pct(successes, calls)} of ${calls} calls)`;
    const cap = `${row.capMs / 1000} s${row.capMs === defaults.breaker.idleMaxBreakMs ? ' (default)' : ''}`;
    lines.push(`| ${cap} | ${cells.join(' | ')} | ${fleet} |`);
  }
  return lines.join('\n');
}

/**
 * The cap with the most successful calls, the best successes among caps within `share` of the naive loop's requests
 * (per scenario), the default cap's shares, and a cap that keeps both the loop's successes and `share`, if any.
 */
export function frontier(rows: readonly IdleCapRow[], share = 0.1) {
  const naiveRow = rows.find((r) => r.capMs === undefined);
  const caps = rows.filter((r) => r.capMs !== undefined);
  if (!naiveRow || caps.length === 0) return undefined;
  const successShare = (r: IdleCapRow) => r.fleet.successes / Math.max(1, naiveRow.fleet.successes);
  const requestShare = (r: IdleCapRow, key: string) =>
    (r.requestsWhileDown[key] ?? 0) / Math.max(1, naiveRow.requestsWhileDown[key] ?? 0);
  const mostSuccessful = (of: readonly IdleCapRow[]) =>
    of.reduce<IdleCapRow | undefined>((a, b) => (a && successShare(a) >= successShare(b) ? a : b), undefined);
  const best = mostSuccessful(caps) as IdleCapRow;
  const withinShare = DEAD_SERVER_KEYS.map((key) => {
    const top = mostSuccessful(caps.filter((r) => requestShare(r, key) <= share));
    return { key, cap: top?.capMs, successShare: top ? successShare(top) : undefined };
  });
  const chosen = caps.find((r) => r.capMs === defaults.breaker.idleMaxBreakMs);
  const both = caps.find(
    (r) => successShare(r) >= 1 && DEAD_SERVER_KEYS.every((key) => requestShare(r, key) <= share),
  );
  return {
    both: both?.capMs,
    chosen: chosen && {
      successShare: successShare(chosen),
      requestShare: requestShare(chosen, DEAD_SERVER_KEYS[0]),
    },
    best: {
      cap: best.capMs as number,
      successShare: successShare(best),
      requestShare: requestShare(best, DEAD_SERVER_KEYS[0]),
    },
    withinShare,
  };
}

/** The sweep's section of docs/benchmarks.md: what it measures, the table, and what no cap achieves. */
export function renderIdleCapSection(rows: readonly IdleCapRow[]): string {
  const f = frontier(rows);
  const share = (x: number | undefined) => (x === undefined ? '—' : `${(100 * x).toFixed(1)}%`);
  const fitting = f?.withinShare
    .map((w) =>
      w.cap === undefined ? `${w.key}: none` : `${w.key}: ${w.cap / 1000} s, ${share(w.successShare)}`,
    )
    .join('; ');
  const verdict = f?.both === undefined ? 'No cap keeps both' : `${f.both / 1000} s keeps both`;
  const chosen = f?.chosen
    ? ` The default (${defaults.breaker.idleMaxBreakMs / 1000} s) keeps ${share(f.chosen.successShare)} of the loop's successful ` +
      `calls at ${share(f.chosen.requestShare)} of its requests (no deadline); §1's targets report the lone ` +
      'dead-server rows as missed for this reason.'
    : '';
  return [
    '## 5. The idle probe cap: requests into a dead server against recoveries seen (issue #18)',
    '',
    'While nobody waits at an open breaker, it probes when the outage has aged by a quarter, at most',
    '`breakerIdleMaxBreakMs` apart. That spacing is both the requests a dead server gets and how late a recovery is seen, and until an',
    'outage ends nothing tells a dead server from a long outage. Per cap: the requests a lone agent sends a server',
    "dead for 9.5 min (§1's lone dead-server scenarios, refused and 503, without and with a 10 s deadline;",
    `${LONE_SEEDS} seeds pooled; share of the naive loop's), and the successful calls of the fleet benchmark's lone`,
    `caller (§4: one call every 1-3 s, a 10 s limit, 5 min dead, then 60 s up; ${FLEET_SEEDS_NOTE}) against the`,
    'same caller with the naive loop (share; then the share of its own calls). All policies see the same windows, so',
    'successful calls compare like with like; a success rate would not (a caller that fails fast makes more calls).',
    'Virtual time, the defaults otherwise; `npm run bench:idle-cap -w packages/bench` prints the same table.',
    '',
    renderIdleCapSweep(rows),
    '',
    f
      ? `${verdict}. The most successful (${f.best.cap / 1000} s: ${share(f.best.successShare)} of the naive loop's ` +
        `successful calls) sends the dead server ${share(f.best.requestShare)} of the loop's requests (no deadline): ` +
        "seeing a recovery about when the loop does takes about the loop's requests. The most successful cap within " +
        `issue #18's 10% of the loop's requests, per scenario: ${fitting}.${chosen}`
      : '',
  ].join('\n');
}
