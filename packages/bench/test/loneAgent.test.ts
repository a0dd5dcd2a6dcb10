import { describe, expect, it } from 'vitest';
import {
  LONE_AGENT_DEADLINE_MS,
  LONE_AGENT_NO_DEADLINE_LIMIT_MS,
  LONE_AGENT_SCENARIOS,
  LONE_AGENT_THINK_MS,
} from '../src/loneAgent.js';
import { computeMetrics } from '../src/metrics.js';
import { oracle } from '../src/oracle.js';
import { mcpResilience, naive } from '../src/policies.js';
import { downRequestsAroundOpen, failedAfterOpen } from '../src/quality.js';
import { recordSequence, type ScenarioSpec, type Sequence } from '../src/scenarios.js';
import { type CallTrace, simulate } from '../src/simulate.js';

const spec = (key: string): ScenarioSpec => {
  const found = LONE_AGENT_SCENARIOS.find((s) => s.key === key);
  if (!found) throw new Error(`no scenario ${key}`);
  return found;
};

/** A 2 min lone agent against a server down from 10 s on (connection refused), with or without a deadline. */
function dead(withoutDeadline: boolean): Sequence {
  const base = recordSequence(spec(withoutDeadline ? 'lone-dead-refused' : 'lone-dead-refused-deadline'), 1);
  return {
    ...base,
    durationMs: 120_000,
    segments: [{ from: 10_000, to: 3_600_000, state: { kind: 'down', fault: 'connection_refused' } }],
  };
}

const gaps = (calls: readonly CallTrace[]) => calls.slice(1).map((c, i) => c.start - calls[i]!.end);

describe('lone-agent scenarios', () => {
  it('come in pairs, without a deadline and with one, for each shape', () => {
    const keys = LONE_AGENT_SCENARIOS.map((s) => s.key);
    for (const k of ['lone-dead-refused', 'lone-dead-503', 'lone-blip', 'lone-outage20']) {
      expect(keys).toContain(k);
      expect(keys).toContain(`${k}-deadline`);
      expect(spec(k)).toMatchObject({ withoutDeadline: true, deadlineMs: LONE_AGENT_NO_DEADLINE_LIMIT_MS });
      expect(spec(`${k}-deadline`).withoutDeadline).toBeUndefined();
      expect(spec(`${k}-deadline`).deadlineMs).toBe(LONE_AGENT_DEADLINE_MS);
    }
  });

  it('record one call per think time at most, and the 3 s blips and 20 s outages they claim', () => {
    const blips = recordSequence(spec('lone-blip'), 2);
    expect(blips.calls.length).toBe(Math.ceil(blips.durationMs / LONE_AGENT_THINK_MS));
    expect(blips.segments.length).toBeGreaterThan(5);
    for (const s of blips.segments) expect(s.to - s.from).toBe(3_000);
    const outages = recordSequence(spec('lone-outage20'), 2);
    expect(outages.segments.map((s) => s.to - s.from)).toEqual([20_000, 20_000]);
  });
});

describe('simulate: one sequential agent', () => {
  it('starts each call one think time after the previous answer, and none after the window', async () => {
    const run = await simulate(dead(false), naive);
    expect(run.calls.length).toBeGreaterThan(5);
    for (const gap of gaps(run.calls)) expect(gap).toBe(LONE_AGENT_THINK_MS);
    for (const c of run.calls) expect(c.start).toBeLessThan(120_000);
    // with a 10 s deadline, the naive loop's calls on the dead server end at the deadline
    expect(run.calls.filter((c) => !c.ok).every((c) => c.end - c.start === LONE_AGENT_DEADLINE_MS)).toBe(
      true,
    );
  });

  it('without a deadline, no call is cut: the naive loop spends its 31 s of backoff on each call', async () => {
    const run = await simulate(dead(true), naive);
    const failed = run.calls.filter((c) => !c.ok);
    expect(failed.length).toBeGreaterThan(2);
    for (const c of failed) {
      expect(c.endedBy).toBe('error');
      expect(c.attempts).toHaveLength(6);
      expect(c.end - c.start).toBeGreaterThanOrEqual(31_000);
    }
  });

  it('the oracle fails every call on the dead server at once, without a request', async () => {
    for (const withoutDeadline of [true, false]) {
      const run = await simulate(dead(withoutDeadline), oracle);
      const failed = run.calls.filter((c) => !c.ok);
      expect(failed.length).toBeGreaterThan(50);
      for (const c of failed) {
        expect(c.attempts).toHaveLength(0);
        expect(c.end).toBe(c.start);
      }
    }
  });

  it('the oracle waits through an outage that ends within its limit, and fails at once otherwise', async () => {
    const outage = (withoutDeadline: boolean): Sequence => ({
      ...recordSequence(spec(withoutDeadline ? 'lone-outage20' : 'lone-outage20-deadline'), 1),
      durationMs: 40_000,
      segments: [{ from: 5_000, to: 25_000, state: { kind: 'down', fault: 'unavailable_503_html' } }],
    });
    const patient = computeMetrics((await simulate(outage(true), oracle)).calls);
    expect(patient.successRate).toBe(1);
    expect(patient.requestsWhileDown).toBe(0);
    const hurried = (await simulate(outage(false), oracle)).calls;
    // a call that meets the outage with more than 10 s of it left fails at once; later ones wait for its end
    const failed = hurried.filter((c) => !c.ok);
    expect(failed.length).toBeGreaterThan(0);
    for (const c of failed) expect(c.start).toBeLessThan(15_000);
    expect(failed.every((c) => c.end === c.start && c.attempts.length === 0)).toBe(true);
    expect(hurried.filter((c) => c.ok && c.start >= 15_000 && c.start < 25_000).length).toBeGreaterThan(0);
  });

  it("reports mcp-resilience's breaker openings, and the failed calls after them", async () => {
    const sequence = dead(false);
    const run = await simulate(sequence, mcpResilience);
    expect(run.opens?.length).toBeGreaterThan(0);
    const after = failedAfterOpen(sequence, run.calls, run.opens!);
    const firstOpen = run.opens!.find((t) => t >= 10_000)!;
    expect(after).toHaveLength(run.calls.filter((c) => !c.ok && c.start >= firstOpen).length);
    expect(failedAfterOpen(sequence, run.calls, [])).toEqual([]);
    expect((await simulate(sequence, naive)).opens).toBeUndefined();
  });

  it('splits the requests into the dead server at the breaker opening: the failures that open it, then its probes', async () => {
    const sequence = dead(true);
    const run = await simulate(sequence, mcpResilience);
    const split = downRequestsAroundOpen(sequence, run.calls, run.opens!);
    const down = run.calls.flatMap((c) => c.attempts.filter((a) => a.down));
    expect(split.beforeOpen + split.afterOpen).toBe(down.length);
    // the defaults open the breaker after 5 failures in a row: the first call's attempts into the outage
    expect(split.beforeOpen).toBe(5);
    // never opened: every down request counts before the opening
    expect(downRequestsAroundOpen(sequence, run.calls, [])).toEqual({
      beforeOpen: down.length,
      afterOpen: 0,
    });
  });
});
