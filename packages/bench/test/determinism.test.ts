import { describe, expect, it } from 'vitest';
import { checkPhases } from '../src/checkPhases.js';
import { goodputByPhase, spikePhases } from '../src/goodput.js';
import { cockatielPolicy, mcpResilience, naive, opossumPRetry, pRetryDefaults } from '../src/policies.js';
import { type QualityCell, runQuality } from '../src/quality.js';
import { SCENARIOS, type ScenarioSpec } from '../src/scenarios.js';
import type { CallTrace } from '../src/simulate.js';

const overload = SCENARIOS.find((s) => s.key === 'overload')!;
/** The overload scenario, shortened: 100 s with a 30 calls/s spike from 20 s to 30 s. */
const smallOverload: ScenarioSpec = {
  ...overload,
  key: 'overload-small',
  durationMs: 100_000,
  load: [{ ...overload.load![0]!, from: 20_000, to: 30_000 }],
};
const policies = [naive, pRetryDefaults, cockatielPolicy, opossumPRetry, mcpResilience];

/** A cell without its real-time figure (the wall-clock time the simulation took, by design not reproducible). */
const virtual = ({ wallMs: _wallMs, ...rest }: QualityCell) => rest;

describe('the virtual-time bench is deterministic', () => {
  it('two runs of a small overload scenario, in the same process, give identical cells', async () => {
    const first = await runQuality([1, 2], [smallOverload], policies);
    const second = await runQuality([1, 2], [smallOverload], policies);
    expect(first.cells.map((c) => c.policy)).toEqual(policies.map((p) => p.key));
    // the scenario does something: some calls succeed and some fail, in every phase but the last
    for (const c of first.cells) expect(c.phases?.length).toBe(4);
    expect(first.cells.some((c) => c.metrics.succeeded > 0 && c.metrics.succeeded < c.metrics.calls)).toBe(
      true,
    );
    expect(second.cells.map(virtual)).toEqual(first.cells.map(virtual));
    expect(second.scenarios).toEqual(first.scenarios);
    // byte-identical, as results.json would be
    expect(JSON.stringify(second.cells.map(virtual))).toBe(JSON.stringify(first.cells.map(virtual)));
  });
});

describe('checkPhases', () => {
  const phases = spikePhases({ from: 1_000, to: 2_000, callEveryMs: 10 }, 4_000, 1_000);
  const call = (start: number, ok: boolean): CallTrace =>
    ({ start, end: start + (ok ? 100 : 1_000), ok }) as unknown as CallTrace;
  const calls = [call(0, true), call(500, false), call(1_500, true), call(2_500, true), call(3_000, false)];

  it('accepts the figures goodputByPhase computes', () => {
    expect(() => checkPhases('x', goodputByPhase(calls, phases, 1), phases, 1)).not.toThrow();
  });

  it('rejects a success rate or goodput that its counts do not give, naming the cell and phase', () => {
    const byPhase = goodputByPhase(calls, phases, 1);
    // the corruption seen once in docs/benchmarks.md: right counts, zero rate and goodput, the deadline as median
    const corrupted = byPhase.map((p) => ({ ...p, successRate: 0, goodput: 0, p50Ms: 1_000, p99Ms: 1_000 }));
    expect(() => checkPhases('overload p-retry', corrupted, phases, 1)).toThrow(
      /overload p-retry, phase before: inconsistent figures \(1\/2 calls succeeded, successRate 0/,
    );
    const wrongGoodput = byPhase.map((p, i) => (i === 2 ? { ...p, goodput: p.goodput + 1 } : p));
    expect(() => checkPhases('c', wrongGoodput, phases, 1)).toThrow(/phase recovery/);
  });
});
