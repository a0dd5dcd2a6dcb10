import type { Phase, PhaseGoodput } from './goodput.js';

/** Two figures are the same when both are NaN or both are equal. */
const same = (a: number, b: number) => (Number.isNaN(a) && Number.isNaN(b)) || a === b;

/**
 * Throws when a phase's success rate or goodput is not the one its own counts give (`succeeded / calls`,
 * `succeeded / runs / seconds`). The figures are computed together from the same counts, so a mismatch means the
 * process computed them wrongly: one regeneration of docs/benchmarks.md (commit 8505fa1) published, for the overload
 * scenario's p-retry row, the counts of a correct run (2,066 of 2,250 calls before the spike succeeded) beside a
 * success rate of 0, a goodput of 0 and a median of 30 s in every phase, a result no other run reproduced. The check
 * makes such a run fail instead of publishing a table that is not reproducible.
 */
export function checkPhases(
  label: string,
  byPhase: readonly PhaseGoodput[],
  phases: readonly Phase[],
  runs: number,
): void {
  for (const p of byPhase) {
    const def = phases.find((d) => d.key === p.phase);
    const seconds = def ? (def.to - def.from) / 1000 : Number.NaN;
    const rate = p.calls ? p.succeeded / p.calls : Number.NaN;
    const goodput = seconds > 0 && runs > 0 ? p.succeeded / runs / seconds : Number.NaN;
    const latencies = p.calls ? p.p50Ms <= p.p99Ms : Number.isNaN(p.p50Ms) && Number.isNaN(p.p99Ms);
    if (!same(p.successRate, rate) || !same(p.goodput, goodput) || !latencies) {
      throw new Error(
        `${label}, phase ${p.phase}: inconsistent figures (${p.succeeded}/${p.calls} calls succeeded, ` +
          `successRate ${p.successRate}, goodput ${p.goodput}/s, p50 ${p.p50Ms} ms, p99 ${p.p99Ms} ms)`,
      );
    }
  }
}
