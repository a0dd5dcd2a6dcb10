import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { checkPhases } from './checkPhases.js';
import { FAULTS } from './faults.js';
import { goodputByPhase, goodputSeries, type PhaseGoodput, spikePhases } from './goodput.js';
import {
  computeMetrics,
  type Diagnosis,
  diagnose,
  type Metrics,
  outcomeBreakdown,
  percentile,
} from './metrics.js';
import { planStep } from './oracle.js';
import {
  evaluate,
  type LoadPhase,
  recordSequence,
  type ScenarioSpec,
  type Sequence,
  segmentAt,
} from './scenarios.js';
import { type CallTrace, type Policy, simulate } from './simulate.js';

export interface QualityCell {
  readonly scenario: string;
  readonly policy: string;
  /** Over the calls of every seed, pooled. */
  readonly metrics: Metrics;
  readonly diagnosis: Diagnosis;
  readonly outcomes: Record<string, number>;
  /** Success rate of each seed's run, in seed order. */
  readonly successBySeed: number[];
  /** The policy's own counters (summed over seeds), plus calls failed without a request while the endpoint was up. */
  readonly extra: Record<string, number>;
  readonly wallMs: number;
  /**
   * Policies that report their breaker's openings: the calls that failed after the breaker had opened in the down
   * period they started in (a dead server: every call after the first few), and their median duration.
   */
  readonly afterBreakerOpened?: { readonly failedCalls: number; readonly failedP50Ms: number };
  /** Scenarios with a load spike: success and goodput before, during and after it. */
  readonly phases?: PhaseGoodput[];
  /** Scenarios with a load spike: successful calls per second by completion time, per GOODPUT_BUCKET_MS. */
  readonly goodputSeries?: number[];
}

/** The bucket of the goodput-over-time series. */
export const GOODPUT_BUCKET_MS = 10_000;

export interface ScenarioSummary {
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly calls: number;
  readonly durationMs: number;
  readonly deadlineMs: number;
  /** The caller sets no deadline (deadlineMs is then the oracle's limit). */
  readonly withoutDeadline?: boolean;
  /** A lone sequential agent (its calls per seed are then the most it can make: one per think time). */
  readonly agent?: ScenarioSpec['agent'];
  /** The load spike and the server's capacity, for scenarios that have them. */
  readonly spike?: ScenarioSpec['load'];
  readonly capacity?: ScenarioSpec['capacity'];
  /** Time the endpoint spends down / rate limited, per seed on average. */
  readonly downMs: number;
  readonly rateLimitedMs: number;
  /** First-attempt failures (each call's first request sent at its arrival), by group, over all seeds. */
  readonly firstAttemptFailures: Record<string, number>;
  readonly firstAttemptFailureRate: number;
  /** Share of those failures that are non-retryable (ground truth). */
  readonly nonRetryableShare: number;
}

/** Policy-independent facts about a scenario's recorded sequences. */
export function summarizeScenario(spec: ScenarioSpec, sequences: readonly Sequence[]): ScenarioSummary {
  const groups: Record<string, number> = {};
  let calls = 0;
  let failures = 0;
  let permanent = 0;
  let downMs = 0;
  let rateLimitedMs = 0;
  for (const sequence of sequences) {
    for (const s of sequence.segments) {
      if (s.state.kind === 'down') downMs += s.to - s.from;
      else if (s.state.kind === 'rate_limited') rateLimitedMs += s.to - s.from;
    }
    for (const call of sequence.calls) {
      calls++;
      const r = evaluate(sequence, call, 1, call.at);
      if (r.ok) continue;
      failures++;
      if (!r.transient) permanent++;
      const group = FAULTS[r.fault].group;
      groups[group] = (groups[group] ?? 0) + 1;
    }
  }
  return {
    key: spec.key,
    name: spec.name,
    description: spec.description,
    calls: calls / sequences.length,
    durationMs: spec.durationMs,
    deadlineMs: spec.deadlineMs,
    ...(spec.withoutDeadline ? { withoutDeadline: true } : {}),
    ...(spec.agent ? { agent: spec.agent } : {}),
    ...(spec.load ? { spike: spec.load } : {}),
    ...(spec.capacity ? { capacity: spec.capacity } : {}),
    downMs: downMs / sequences.length,
    rateLimitedMs: rateLimitedMs / sequences.length,
    firstAttemptFailures: Object.fromEntries(Object.entries(groups).sort((a, b) => b[1] - a[1])),
    firstAttemptFailureRate: calls ? failures / calls : 0,
    nonRetryableShare: failures ? permanent / failures : 0,
  };
}

/**
 * Calls a policy failed without sending anything: how many arrived while the endpoint was up (not down), and how
 * many the oracle could have completed before their deadline.
 */
export function rejections(
  sequence: Sequence,
  calls: readonly CallTrace[],
): { whileUp: number; salvageable: number } {
  let whileUp = 0;
  let salvageable = 0;
  for (const call of calls) {
    if (call.ok || call.attempts.length > 0) continue;
    if (segmentAt(sequence, call.start)?.state.kind !== 'down') whileUp++;
    const recorded = sequence.calls[call.id];
    if (recorded && planStep(sequence, recorded, 1, call.start, call.start + sequence.deadlineMs))
      salvageable++;
  }
  return { whileUp, salvageable };
}

/**
 * The durations of the calls that failed after the breaker had opened within the down period they started in:
 * what failing costs once the breaker knows.
 */
export function failedAfterOpen(
  sequence: Sequence,
  calls: readonly CallTrace[],
  opens: readonly number[],
): number[] {
  const durations: number[] = [];
  for (const s of sequence.segments) {
    if (s.state.kind !== 'down') continue;
    const opened = opens.find((t) => t >= s.from && t < s.to);
    if (opened === undefined) continue;
    for (const c of calls) if (!c.ok && c.start >= opened && c.start < s.to) durations.push(c.end - c.start);
  }
  return durations;
}

/**
 * The requests that reached a down endpoint, split at the breaker's first opening within each down period: before
 * it (the failures that open it), and after it (what the open breaker let through: its probes).
 */
export function downRequestsAroundOpen(
  sequence: Sequence,
  calls: readonly CallTrace[],
  opens: readonly number[],
): { beforeOpen: number; afterOpen: number } {
  let beforeOpen = 0;
  let afterOpen = 0;
  for (const s of sequence.segments) {
    if (s.state.kind !== 'down') continue;
    const opened = opens.find((t) => t >= s.from && t < s.to) ?? Number.POSITIVE_INFINITY;
    for (const c of calls) {
      for (const a of c.attempts) {
        if (!a.down || a.start < s.from || a.start >= s.to) continue;
        if (a.start < opened) beforeOpen++;
        else afterOpen++;
      }
    }
  }
  return { beforeOpen, afterOpen };
}

/**
 * For a run whose policy reports its breaker's openings: counts the down requests before and after them
 * (`downBeforeOpen`, `downAfterOpen`), and returns `soFar` with the durations of the calls that failed after an
 * opening.
 */
function afterOpening(
  sequence: Sequence,
  calls: readonly CallTrace[],
  opens: readonly number[],
  count: (key: string, n: number) => void,
  soFar: readonly number[] = [],
): number[] {
  const split = downRequestsAroundOpen(sequence, calls, opens);
  count('downBeforeOpen', split.beforeOpen);
  count('downAfterOpen', split.afterOpen);
  return [...soFar, ...failedAfterOpen(sequence, calls, opens)];
}

/** A spike scenario's success and goodput per phase (checked against their counts) and its goodput series. */
function spikeFigures(
  label: string,
  spec: ScenarioSpec,
  spike: LoadPhase,
  pooled: readonly CallTrace[],
  runs: number,
): { phases: PhaseGoodput[]; goodputSeries: number[] } {
  const phases = spikePhases(spike, spec.durationMs, spec.deadlineMs);
  const byPhase = goodputByPhase(pooled, phases, runs);
  checkPhases(label, byPhase, phases, runs);
  return { phases: byPhase, goodputSeries: goodputSeries(pooled, spec, GOODPUT_BUCKET_MS, runs) };
}

/** Runs every policy on every scenario's recorded sequences (one per seed), and pools the seeds. */
export async function runQuality(
  seeds: readonly number[],
  scenarios: readonly ScenarioSpec[],
  policies: readonly Policy[],
  log: (line: string) => void = () => {},
): Promise<{ cells: QualityCell[]; scenarios: ScenarioSummary[] }> {
  const cells: QualityCell[] = [];
  const summaries: ScenarioSummary[] = [];
  for (const spec of scenarios) {
    const sequences = seeds.map((seed) => recordSequence(spec, seed));
    summaries.push(summarizeScenario(spec, sequences));
    for (const policy of policies) {
      const pooled: CallTrace[] = [];
      const successBySeed: number[] = [];
      const extra: Record<string, number> = {};
      const count = (key: string, n: number) => {
        extra[key] = (extra[key] ?? 0) + n;
      };
      let wallMs = 0;
      let afterOpen: number[] | undefined;
      for (const sequence of sequences) {
        const run = await simulate(sequence, policy);
        wallMs += run.wallMs;
        if (run.opens) afterOpen = afterOpening(sequence, run.calls, run.opens, count, afterOpen);
        successBySeed.push(run.calls.filter((c) => c.ok).length / run.calls.length);
        for (const [key, n] of Object.entries(run.report)) count(key, n);
        const r = rejections(sequence, run.calls);
        count('failedWithoutRequestWhileUp', r.whileUp);
        count('failedWithoutRequestSalvageable', r.salvageable);
        for (const call of run.calls) pooled.push(call);
      }
      const metrics = computeMetrics(pooled, { durationMs: spec.durationMs, runs: sequences.length });
      const spike = spec.load?.[0];
      afterOpen?.sort((a, b) => a - b);
      cells.push({
        ...(spike ? spikeFigures(`${spec.key} ${policy.key}`, spec, spike, pooled, sequences.length) : {}),
        ...(afterOpen
          ? { afterBreakerOpened: { failedCalls: afterOpen.length, failedP50Ms: percentile(afterOpen, 50) } }
          : {}),
        scenario: spec.key,
        policy: policy.key,
        metrics,
        diagnosis: diagnose(pooled),
        outcomes: outcomeBreakdown(pooled),
        successBySeed,
        extra,
        wallMs,
      });
      log(
        `  ${spec.key.padEnd(11)} ${policy.key.padEnd(22)} success ${(100 * metrics.successRate).toFixed(2)}% ` +
          `retries ${metrics.retries} (wasted ${metrics.wastedRetries}) down ${metrics.requestsWhileDown} ` +
          `failed ${(metrics.failedTimeMs / 1000).toFixed(0)} s ` +
          `[${(wallMs / 1000).toFixed(1)} s]`,
      );
    }
  }
  return { cells, scenarios: summaries };
}

/**
 * The same as runQuality, with the scenarios spread over `workers` child processes (each scenario stays whole;
 * the cells come back in scenario, then policy order). Results do not depend on the number of workers.
 */
export async function runQualityParallel(
  seeds: readonly number[],
  scenarios: readonly ScenarioSpec[],
  policies: readonly Policy[],
  workers: number,
): Promise<{ cells: QualityCell[]; scenarios: ScenarioSummary[] }> {
  const loads = Array.from({ length: Math.max(1, workers) }, () => ({ cost: 0, keys: [] as string[] }));
  for (const spec of [...scenarios].sort(
    (a, b) => b.durationMs / b.callEveryMs - a.durationMs / a.callEveryMs,
  )) {
    const least = loads.reduce((min, l) => (l.cost < min.cost ? l : min));
    least.cost += spec.durationMs / spec.callEveryMs;
    least.keys.push(spec.key);
  }
  const file = fileURLToPath(new URL('./qualityWorker.ts', import.meta.url));
  const parts = await Promise.all(
    loads
      .filter((l) => l.keys.length > 0)
      .map(
        (l) =>
          new Promise<{ cells: QualityCell[]; scenarios: ScenarioSummary[] }>((resolve, reject) => {
            const job = JSON.stringify({ seeds, scenarios: l.keys, policies: policies.map((p) => p.key) });
            const child = fork(file, [job], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
            let result: { cells: QualityCell[]; scenarios: ScenarioSummary[] } | undefined;
            child.on('message', (m) => {
              result = m as typeof result;
            });
            child.on('error', reject);
            child.on('exit', (code) =>
              result ? resolve(result) : reject(new Error(`quality worker exited with code ${code}`)),
            );
          }),
      ),
  );
  const order = scenarios.map((s) => s.key);
  const byScenario = (a: { scenario?: string; key?: string }) => order.indexOf(a.scenario ?? a.key ?? '');
  const policyOrder = policies.map((p) => p.key);
  return {
    cells: parts
      .flatMap((p) => p.cells)
      .sort(
        (a, b) =>
          byScenario(a) - byScenario(b) || policyOrder.indexOf(a.policy) - policyOrder.indexOf(b.policy),
      ),
    scenarios: parts.flatMap((p) => p.scenarios).sort((a, b) => byScenario(a) - byScenario(b)),
  };
}
