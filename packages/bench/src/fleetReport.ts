import type { FleetCell } from './fleet.js';
import type { FleetLatency } from './fleetLatency.js';

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
/** Requests into the down endpoint, mean per run. */
const downMean = (c: FleetCell | undefined) =>
  c ? sum(c.runs.map((r) => r.requestsWhileDown)) / c.runs.length : 0;
/** Successes over calls, every run pooled. */
const success = (c: FleetCell | undefined) =>
  c ? sum(c.runs.map((r) => r.successes)) / Math.max(1, sum(c.runs.map((r) => r.calls))) : 0;
const rate = (r: { successes: number; calls: number }) => r.successes / Math.max(1, r.calls);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
/** The slowest run's "all fail fast" (undefined: some run had a replica that never did). */
const failFast = (c: FleetCell) =>
  c.runs.some((r) => r.allFailFastMs === undefined)
    ? undefined
    : Math.max(...c.runs.map((r) => r.allFailFastMs ?? 0));

/** One cell's row of the fleet table. */
function fleetRow(c: FleetCell, alone: number): string {
  const rates = c.runs.map(rate);
  const ff = failFast(c);
  return (
    `| ${c.replicas} | ${c.shared ? 'shared (in-memory store)' : 'local only'} | ${downMean(c).toFixed(1)} | ` +
    `${(downMean(c) / Math.max(1, alone)).toFixed(2)}× | ${pct(success(c))} | ` +
    `${pct(Math.min(...rates))} – ${pct(Math.max(...rates))} | ${ff === undefined ? 'never' : `${ff} ms`} |`
  );
}

/** The fleet section of docs/benchmarks.md, with each target of issue #23 met or not. */
export function renderFleet(cells: readonly FleetCell[], latency: FleetLatency): string {
  const cell = (n: number, shared: boolean) => cells.find((c) => c.replicas === n && c.shared === shared);
  const alone = downMean(cell(1, false));
  const seeds = cells[0]?.runs.length ?? 0;
  const rows = cells.map((c) => fleetRow(c, alone));
  const ratio = downMean(cell(50, true)) / Math.max(1, alone);
  const margins = [1, 10, 50].map((n) => success(cell(n, true)) - success(cell(n, false)));
  const below = [1, 10, 50].map((n) => {
    const local = cell(n, false)?.runs ?? [];
    return (cell(n, true)?.runs ?? []).filter((r, i) => local[i] && rate(r) < rate(local[i])).length;
  });
  const shared = cells.filter((c) => c.shared);
  const worstFailFast = Math.max(...shared.map((c) => failFast(c) ?? Number.POSITIVE_INFINITY));
  const added = latency.reachableNs - latency.noStoreNs;
  const addedDown = latency.unreachableNs - latency.noStoreNs;
  const met = (ok: boolean) => (ok ? 'met' : '**not met**');
  const signed = (ns: number) => `${ns >= 0 ? '+' : ''}${(ns / 1000).toFixed(2)} µs`;
  return [
    '## 4. A fleet: shared endpoint health (issue #23)',
    '',
    'N replicas of a low-rate caller (one call every 1-3 s each, a 10 s limit per call, the defaults otherwise) against',
    'one endpoint that is dead for five minutes (10 s healthy before, 60 s after), on virtual time; "shared" gives every',
    'replica the in-memory health store of the middleware (`createMemoryHealthStore`, 1 ms per operation), the same port',
    `and semantics as the Redis store. Each cell is ${seeds} runs (seeds); a seed gives the callers the same schedule with`,
    'and without the store. Requests are the mean per run; success is pooled over the runs, with the range of the runs',
    '(one run\'s success depends on where the first probe after the recovery falls). "All fail fast" is the time from',
    "the fleet's first trip to the last replica's breaker leaving closed, in the slowest run.",
    '',
    '| replicas | health | requests into the down endpoint | vs one replica alone | success | success per run | all fail fast after |',
    '|---:|---|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    'Success-path latency per call on a real redis-server (median of interleaved batches of 20,000 calls, this run):',
    `no store ${(latency.noStoreNs / 1000).toFixed(2)} µs, store reachable ${(latency.reachableNs / 1000).toFixed(2)} µs ` +
      `(${signed(added)}), store unreachable ${(latency.unreachableNs / 1000).toFixed(2)} µs (${signed(addedDown)}).`,
    '',
    '| target | value | status |',
    '|---|---:|---|',
    `| requests into the down endpoint at N = 50, shared ≤ 2× one replica alone | ${ratio.toFixed(2)}× | ${met(ratio <= 2)} |`,
    `| every replica fails fast within 1 s of the first trip (shared) | ${worstFailFast} ms | ${met(worstFailFast <= 1_000)} |`,
    `| success never below the local-only policy's (shared − local at N = 1, 10, 50) | ${margins.map((m) => `${m >= 0 ? '+' : ''}${(100 * m).toFixed(1)}`).join(', ')} points | ${met(margins.every((m) => m >= 0))} |`,
    `| added latency on the success path ≤ 5 µs p50, store reachable | ${signed(added)} | ${met(added <= 5_000)} |`,
    `| none when the store is unreachable (≤ 5 µs, noise) | ${signed(addedDown)} | ${met(addedDown <= 5_000)} |`,
    '',
    `Runs where the shared fleet's success is below the local-only run of the same seed: ${below.join(', ')} of ${seeds}`,
    '(N = 1, 10, 50). Without the store the requests grow with N (each replica trips on its own); with it the fleet',
    'trips as one: its failures in a row are counted in the store, and the failure that makes the count reach the',
    "threshold opens that replica's breaker, whose verdict the others adopt. The fleet then probes once per interval,",
    "with the first call after the break anywhere in the fleet, and its breaks are two thirds of one replica's (it",
    'probes 1.5 times as often as a replica alone, within the 2× target): the probe that finds the recovery comes',
    'sooner, and every replica closes with it. A lone replica with the store probes that often too (N = 1, shared).',
  ].join('\n');
}
