import { percentile } from './metrics.js';
import type { LoadPhase, Sequence } from './scenarios.js';
import type { CallTrace } from './simulate.js';

/** A period of a run with a load spike, by call arrival time (ms since the start). */
export interface Phase {
  readonly key: 'before' | 'spike' | 'recovery' | 'after';
  readonly name: string;
  readonly from: number;
  readonly to: number;
}

export interface PhaseGoodput {
  readonly phase: Phase['key'];
  readonly calls: number;
  readonly succeeded: number;
  /** succeeded / calls of the calls that arrived in the phase. */
  readonly successRate: number;
  /** Successful calls per second of the phase, per run (seeds averaged). */
  readonly goodput: number;
  /** Call latency (start to answer) of the calls that arrived in the phase. */
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** After the spike, calls may still be retrying spike calls for one deadline: the phase in between. */
export function spikePhases(spike: LoadPhase, durationMs: number, deadlineMs: number): Phase[] {
  const afterFrom = Math.min(durationMs, spike.to + deadlineMs);
  // The last deadline of the run is left out: calls arriving then meet a load that is winding down.
  const afterTo = Math.max(afterFrom, durationMs - deadlineMs);
  return [
    { key: 'before', name: 'before the spike', from: 0, to: spike.from },
    { key: 'spike', name: 'during the spike', from: spike.from, to: spike.to },
    { key: 'recovery', name: 'one deadline after it', from: spike.to, to: afterFrom },
    { key: 'after', name: 'after that (steady state)', from: afterFrom, to: afterTo },
  ];
}

/** Success and goodput per phase, over the calls of `runs` runs (seeds) pooled. */
export function goodputByPhase(
  calls: readonly CallTrace[],
  phases: readonly Phase[],
  runs: number,
): PhaseGoodput[] {
  return phases.map((phase) => {
    let n = 0;
    let ok = 0;
    const durations: number[] = [];
    for (const c of calls) {
      if (c.start < phase.from || c.start >= phase.to) continue;
      n++;
      if (c.ok) ok++;
      durations.push(c.end - c.start);
    }
    durations.sort((a, b) => a - b);
    const seconds = (phase.to - phase.from) / 1000;
    return {
      phase: phase.key,
      calls: n,
      succeeded: ok,
      successRate: n ? ok / n : Number.NaN,
      goodput: seconds > 0 && runs > 0 ? ok / runs / seconds : Number.NaN,
      p50Ms: percentile(durations, 50),
      p99Ms: percentile(durations, 99),
    };
  });
}

/** Successful calls per second by the time they completed, in buckets of `bucketMs`, per run (seeds averaged). */
export function goodputSeries(
  calls: readonly CallTrace[],
  sequence: Pick<Sequence, 'durationMs' | 'deadlineMs'>,
  bucketMs: number,
  runs: number,
): number[] {
  const buckets = new Array<number>(Math.ceil((sequence.durationMs + sequence.deadlineMs) / bucketMs)).fill(
    0,
  );
  for (const c of calls) {
    if (!c.ok) continue;
    const i = Math.floor(c.end / bucketMs);
    if (i >= 0 && i < buckets.length) buckets[i]! += 1;
  }
  return buckets.map((n) => n / runs / (bucketMs / 1000));
}

/** How far latency may stay above its level before the spike and still count as recovered. */
export const RECOVERED_LATENCY_FACTOR = 2;

/**
 * Whether the run came back after the spike, over the calls that arrived after it (one deadline after its end, to
 * the last deadline of the run): their success rate is at least `share` of the rate before the spike, and their
 * median latency at most RECOVERED_LATENCY_FACTOR × the median before it (a standing queue that keeps every call
 * waiting seconds is not a recovery, even when the calls end up succeeding).
 */
export function recovered(byPhase: readonly PhaseGoodput[], share = 0.95): boolean {
  const before = byPhase.find((p) => p.phase === 'before');
  const after = byPhase.find((p) => p.phase === 'after');
  if (!before || !after || !(before.successRate > 0)) return false;
  return (
    after.successRate >= share * before.successRate && after.p50Ms <= RECOVERED_LATENCY_FACTOR * before.p50Ms
  );
}
