import type { FleetCell } from './fleet.js';
import type { FleetLatency } from './fleetLatency.js';

/** The fleet section of docs/benchmarks.md, with each target of issue #23 met or not. */
export function renderFleet(cells: readonly FleetCell[], latency: FleetLatency): string {
  const cell = (n: number, shared: boolean) => cells.find((c) => c.replicas === n && c.shared === shared);
  const alone = cell(1, false)?.requestsWhileDown ?? 0;
  const fleet50 = cell(50, true);
  const rows = cells.map(
    (c) =>
      `| ${c.replicas} | ${c.shared ? 'shared (in-memory store)' : 'local only'} | ${c.requestsWhileDown} | ` +
      `${(c.requestsWhileDown / Math.max(1, alone)).toFixed(1)}× | ${((100 * c.successes) / c.calls).toFixed(1)}% (${c.successes}/${c.calls}) | ` +
      `${c.allFailFastMs === undefined ? 'never' : `${c.allFailFastMs} ms`} |`,
  );
  const ratio = (fleet50?.requestsWhileDown ?? 0) / Math.max(1, alone);
  const successOk = [1, 10, 50].every(
    (n) =>
      (cell(n, true)?.successes ?? 0) / (cell(n, true)?.calls ?? 1) >=
      (cell(n, false)?.successes ?? 0) / (cell(n, false)?.calls ?? 1),
  );
  const failFast = cells
    .filter((c) => c.shared)
    .every((c) => c.allFailFastMs !== undefined && c.allFailFastMs <= 1_000);
  const added = latency.reachableNs - latency.noStoreNs;
  const addedDown = latency.unreachableNs - latency.noStoreNs;
  const met = (ok: boolean) => (ok ? 'met' : '**not met**');
  return [
    '## 4. A fleet: shared endpoint health (issue #23)',
    '',
    'N replicas of a low-rate caller (one call every 1-3 s each, a 10 s limit per call, the defaults otherwise) against',
    'one endpoint that is dead for five minutes (10 s healthy before, 60 s after), on virtual time; "shared" gives every',
    'replica the in-memory health store of the middleware (`createMemoryHealthStore`, 1 ms per operation), the same port',
    'and semantics as the Redis store. "All fail fast" is the time from the fleet\'s first trip to the last replica\'s',
    'breaker leaving closed.',
    '',
    '| replicas | health | requests into the down endpoint | vs one replica alone | success | all fail fast after |',
    '|---:|---|---:|---:|---:|---:|',
    ...rows,
    '',
    'Success-path latency per call on a real redis-server (median of interleaved batches of 20,000 calls, this run):',
    `no store ${(latency.noStoreNs / 1000).toFixed(2)} µs, store reachable ${(latency.reachableNs / 1000).toFixed(2)} µs ` +
      `(${added >= 0 ? '+' : ''}${(added / 1000).toFixed(2)} µs), store unreachable ${(latency.unreachableNs / 1000).toFixed(2)} µs ` +
      `(${addedDown >= 0 ? '+' : ''}${(addedDown / 1000).toFixed(2)} µs).`,
    '',
    '| target | value | status |',
    '|---|---:|---|',
    `| requests into the down endpoint at N = 50, shared ≤ 2× one replica alone | ${ratio.toFixed(1)}× | ${met(ratio <= 2)} |`,
    `| every replica fails fast within 1 s of the first trip (shared) | ${Math.max(...cells.filter((c) => c.shared).map((c) => c.allFailFastMs ?? Number.POSITIVE_INFINITY))} ms | ${met(failFast)} |`,
    `| success never below the local-only policy's | | ${met(successOk)} |`,
    `| added latency on the success path ≤ 5 µs p50, store reachable | ${(added / 1000).toFixed(2)} µs | ${met(added <= 5_000)} |`,
    `| none when the store is unreachable (≤ 5 µs, noise) | ${(addedDown / 1000).toFixed(2)} µs | ${met(addedDown <= 5_000)} |`,
    '',
    'Without the store the requests grow with N (each replica trips on its own); with it, what remains above one replica',
    "alone is the first second or two of the outage: every replica's calls in flight, and their retries, before the first",
    'breaker opens (failure counters stay local, as in LiteLLM: see the middleware README, "A fleet").',
  ].join('\n');
}
