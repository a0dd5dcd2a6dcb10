import { describe, expect, it } from 'vitest';
import { goodputByPhase, recovered, spikePhases } from '../src/goodput.js';
import { computeMetrics } from '../src/metrics.js';
import { oracle } from '../src/oracle.js';
import { naive } from '../src/policies.js';
import { type RecordedCall, recordSequence, SCENARIOS, type Sequence } from '../src/scenarios.js';
import { createServerLoad, LOAD_WINDOW_MS } from '../src/serverLoad.js';
import { type Policy, simulate } from '../src/simulate.js';

describe('createServerLoad', () => {
  it('admits up to its capacity in any 1 s window, then rejects', () => {
    const server = createServerLoad({ requestsPerSecond: 3, rejectCost: 0, rejectLatencyMs: 100 });
    expect([0, 10, 20, 30].map((t) => server.admit(t))).toEqual([true, true, true, false]);
    // the first admission leaves the window at 1000 ms, not before
    expect(server.admit(999)).toBe(false);
    expect(server.admit(1_000)).toBe(true);
    expect(server.admitted).toBe(4);
    expect(server.rejected).toBe(2);
  });

  it('charges rejections against capacity, so a storm of rejections starves admissions', () => {
    const server = createServerLoad({ requestsPerSecond: 10, rejectCost: 0.5, rejectLatencyMs: 100 });
    for (let i = 0; i < 10; i++) expect(server.admit(i)).toBe(true);
    // 20 rejected requests at 0.5 each: 10 more units spent in the window
    for (let i = 0; i < 20; i++) expect(server.admit(100 + i)).toBe(false);
    // the first 10 admissions expire at 1000-1009; the rejections still fill the window
    expect(server.wouldAdmit(1_010)).toBe(false);
    // once two rejections (1 unit) have left the window, one request fits again
    expect(server.nextAdmission(1_010)).toBe(1_101);
    expect(server.wouldAdmit(1_101)).toBe(true);
  });

  it('a rejection that costs nothing leaves capacity untouched', () => {
    const server = createServerLoad({ requestsPerSecond: 2, rejectCost: 0, rejectLatencyMs: 100 });
    server.admit(0);
    server.admit(0);
    for (let i = 0; i < 100; i++) server.admit(500);
    expect(server.nextAdmission(600)).toBe(LOAD_WINDOW_MS);
  });

  it('answers nextAdmission with the time itself when a request fits now', () => {
    const server = createServerLoad({ requestsPerSecond: 5, rejectCost: 0.2, rejectLatencyMs: 100 });
    expect(server.nextAdmission(42)).toBe(42);
    server.admit(42);
    expect(server.nextAdmission(50)).toBe(50);
  });

  it('rejects a capacity it cannot model, naming the field', () => {
    expect(() => createServerLoad({ requestsPerSecond: 0, rejectCost: 0, rejectLatencyMs: 0 })).toThrow(
      /capacity\.requestsPerSecond/,
    );
    expect(() => createServerLoad({ requestsPerSecond: 5, rejectCost: 1, rejectLatencyMs: 0 })).toThrow(
      /capacity\.rejectCost/,
    );
    expect(() => createServerLoad({ requestsPerSecond: 5, rejectCost: 0, rejectLatencyMs: -1 })).toThrow(
      /capacity\.rejectLatencyMs/,
    );
  });
});

/** Retries every failure after a fixed 500 ms, until the deadline: a retry storm in miniature. */
const stubborn: Policy = {
  key: 'stubborn',
  name: 'stubborn',
  description: 'retries every failure after 500 ms',
  create: () => ({
    async execute(send, { signal }) {
      for (;;) {
        try {
          return await send(signal);
        } catch (error) {
          if (signal.aborted) throw error;
          await new Promise((resolve) => setTimeout(resolve, 500));
          if (signal.aborted) throw error;
        }
      }
    },
  }),
};

/** One request per call, no retry. */
const once: Policy = {
  key: 'once',
  name: 'once',
  description: 'no retry',
  create: () => ({ execute: (send, { signal }) => send(signal) }),
};

/** 8 calls/s on a server of 10 requests/s, with 40 calls/s from 5 s to 8 s; 10 s deadlines, 40 s of arrivals. */
function spikeSequence(): Sequence {
  const calls: RecordedCall[] = [];
  const attempts = Array.from({ length: 16 }, () => ({ latencyMs: 50 }));
  for (let at = 0, id = 0; at < 40_000; id++) {
    calls.push({ id, at, attempts });
    at += at >= 5_000 && at < 8_000 ? 25 : 125;
  }
  return {
    scenario: 'spike',
    seed: 1,
    durationMs: 40_000,
    deadlineMs: 10_000,
    segments: [],
    calls,
    capacity: { requestsPerSecond: 10, rejectCost: 0.5, rejectLatencyMs: 100 },
    load: [{ from: 5_000, to: 8_000, callEveryMs: 25 }],
  };
}

const successAfter = (calls: Awaited<ReturnType<typeof simulate>>['calls'], from: number, to: number) => {
  const window = calls.filter((c) => c.start >= from && c.start < to);
  return window.filter((c) => c.ok).length / window.length;
};

describe('overload on a finite server', () => {
  it('a retry storm outlives the spike that started it (metastable), while no-retry recovers', async () => {
    const sequence = spikeSequence();
    const storm = await simulate(sequence, stubborn);
    const calm = await simulate(sequence, once);
    // before the spike both serve every call
    expect(successAfter(storm.calls, 0, 5_000)).toBe(1);
    expect(successAfter(calm.calls, 0, 5_000)).toBe(1);
    // long after the spike has ended (at the base load the server handled before), the storm persists
    expect(successAfter(storm.calls, 20_000, 30_000)).toBeLessThan(0.5);
    expect(successAfter(calm.calls, 20_000, 30_000)).toBe(1);
    const m = computeMetrics(storm.calls);
    expect(m.requestsOverloaded).toBeGreaterThan(m.calls);
  });

  it('the oracle never sends a request the server rejects, and serves at least as many calls', async () => {
    const sequence = spikeSequence();
    const best = computeMetrics((await simulate(sequence, oracle)).calls);
    expect(best.requestsOverloaded).toBe(0);
    for (const policy of [stubborn, once]) {
      const m = computeMetrics((await simulate(sequence, policy)).calls);
      expect(best.succeeded).toBeGreaterThanOrEqual(m.succeeded);
    }
  });
});

describe('the overload scenario as calibrated', () => {
  it('drives the naive loop into a collapse that outlives the spike; the oracle rides it out', async () => {
    const spec = SCENARIOS.find((s) => s.key === 'overload')!;
    const sequence = recordSequence(spec, 1);
    const phases = spikePhases(spec.load![0]!, spec.durationMs, spec.deadlineMs);
    const naiveRun = goodputByPhase((await simulate(sequence, naive)).calls, phases, 1);
    const oracleRun = goodputByPhase((await simulate(sequence, oracle)).calls, phases, 1);
    expect(naiveRun[0]!.successRate).toBeGreaterThan(0.9);
    expect(naiveRun[3]!.successRate).toBeLessThan(0.1);
    expect(recovered(naiveRun)).toBe(false);
    expect(recovered(oracleRun)).toBe(true);
    expect(oracleRun[1]!.successRate).toBeGreaterThan(0.9);
  });
});
