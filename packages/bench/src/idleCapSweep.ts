/*
 * The idle probe cap's trade-off (issue #18; the middleware README, "The idle cap is a trade-off, measured"): for
 * each `breakerIdleMaxBreakMs`, the requests a lone agent sends a dead server (the bench's lone dead-server
 * scenarios, seeds pooled, without and with a 10 s deadline) against the naive loop's, and the success of the fleet
 * benchmark's lone caller (N = 1, no store: one call every 1-3 s, a 10 s limit, 5 min dead, 60 s up after), in
 * the same run. Virtual time, exact. `npm run bench:idle-cap -w packages/bench` prints it (`idleCapSweepRun.ts`).
 */
import { SEEDS as FLEET_SEEDS, runFleetRun } from './fleet.js';
import { mcpResilienceWith, naive } from './policies.js';
import { recordSequence, SCENARIOS, type ScenarioSpec } from './scenarios.js';
import { type Policy, simulate } from './simulate.js';

/** The caps swept, ms: the default (30 s) first; the last is no cap within the 9.5 min outage. */
export const IDLE_CAPS_MS = [30_000, 45_000, 60_000, 90_000, 240_000, 3_600_000] as const;
/** The lone dead-server scenarios of the bench (refused and 503, without and with a 10 s deadline). */
export const DEAD_SERVER_KEYS = [
  'lone-dead-refused',
  'lone-dead-refused-deadline',
  'lone-dead-503',
  'lone-dead-503-deadline',
] as const;
/** Seeds per lone scenario, as in `npm run bench`. */
export const LONE_SEEDS = 3;
/** How the fleet column was run, for the printout. */
export const FLEET_SEEDS_NOTE = `N = 1, no store, ${FLEET_SEEDS} seeds pooled`;

export interface IdleCapRow {
  /** `breakerIdleMaxBreakMs`; undefined: the naive loop (the reference). */
  readonly capMs?: number;
  /** Requests into the dead server, seeds pooled, by scenario key. */
  readonly requestsWhileDown: Readonly<Record<string, number>>;
  /** The fleet benchmark's lone caller, seeds pooled (absent for the naive loop). */
  readonly fleet?: { readonly successes: number; readonly calls: number };
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

/** The fleet benchmark's lone caller (N = 1, no store) with `capMs`, seeds pooled. */
async function fleetLoneCaller(capMs: number, seeds: number) {
  let successes = 0;
  let calls = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const run = await runFleetRun(1, false, seed, { breakerIdleMaxBreakMs: capMs });
    successes += run.successes;
    calls += run.calls;
  }
  return { successes, calls };
}

/** The naive loop's row, then one row per cap (the defaults otherwise). */
export async function runIdleCapSweep(
  caps: readonly number[] = IDLE_CAPS_MS,
  seeds = LONE_SEEDS,
  fleetSeeds = FLEET_SEEDS,
): Promise<IdleCapRow[]> {
  const rows: IdleCapRow[] = [{ requestsWhileDown: await deadServerRequests(naive, seeds) }];
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

/** The sweep as a Markdown table: requests (and their share of the naive loop's), the fleet caller's success. */
export function renderIdleCapSweep(rows: readonly IdleCapRow[]): string {
  const naiveRow = rows.find((r) => r.capMs === undefined);
  const header = DEAD_SERVER_KEYS.map((k) => `${k} (naive ${naiveRow?.requestsWhileDown[k] ?? '—'})`);
  const lines = [
    `| breakerIdleMaxBreakMs | ${header.join(' | ')} | fleet N = 1 success |`,
    `| --: | ${DEAD_SERVER_KEYS.map(() => '--:').join(' | ')} | --: |`,
  ];
  for (const row of rows) {
    if (row.capMs === undefined || !row.fleet) continue;
    const cells = DEAD_SERVER_KEYS.map((k) => {
      const n = row.requestsWhileDown[k] ?? 0;
      return `${n} (${pct(n, naiveRow?.requestsWhileDown[k] ?? 0)})`;
    });
    const fleet = `${pct(row.fleet.successes, row.fleet.calls)} (${row.fleet.successes} / ${row.fleet.calls})`;
    lines.push(`| ${row.capMs / 1000} s | ${cells.join(' | ')} | ${fleet} |`);
  }
  return lines.join('\n');
}
