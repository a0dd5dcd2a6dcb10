import { describe, expect, it } from 'vitest';
import { LONE_AGENT_THINK_MS } from '../src/loneAgent.js';
import {
  renderSweep,
  runSweep,
  SWEEP_OUTAGES_MS,
  SWEEP_SCENARIOS,
  sweepScenario,
} from '../src/loneAgentSweep.js';
import { oracle } from '../src/oracle.js';
import { mcpResilience, naive } from '../src/policies.js';
import { recordSequence } from '../src/scenarios.js';
import type { Policy } from '../src/simulate.js';

describe('the lone-agent sweep', () => {
  it('has one outage of each length, fault and deadline, placed within two think times', () => {
    expect(SWEEP_SCENARIOS).toHaveLength(SWEEP_OUTAGES_MS.length * 4);
    for (const ms of SWEEP_OUTAGES_MS) {
      const spec = sweepScenario(ms, 'connection_refused', false);
      expect(spec.durationMs).toBe(20_000 + ms + 60_000);
      expect(spec.withoutDeadline).toBe(true);
      const starts = new Set<number>();
      for (let seed = 1; seed <= 6; seed++) {
        const [segment, ...rest] = recordSequence(spec, seed).segments;
        expect(rest).toEqual([]);
        expect(segment!.to - segment!.from).toBe(ms);
        expect(segment!.from).toBeGreaterThanOrEqual(20_000);
        expect(segment!.from).toBeLessThan(20_000 + 2 * LONE_AGENT_THINK_MS);
        starts.add(segment!.from);
      }
      expect(starts.size).toBe(6); // a phase per seed
    }
    expect(sweepScenario(8_000, 'unavailable_503_html', true)).toMatchObject({
      key: 'sweep-8s-503-deadline',
      deadlineMs: 10_000,
    });
  });

  it('pools the seeds per policy and marks where a policy completes or succeeds in fewer calls than the naive loop', async () => {
    const failing: Policy = {
      key: 'failing',
      name: 'fails every call at once',
      description: 'throws without sending',
      create: () => ({ execute: () => Promise.reject(new Error('no')) }),
    };
    const spec = sweepScenario(15_000, 'connection_refused', false);
    const rows = await runSweep([naive, failing, oracle], [spec], 2);
    const { counts } = rows[0]!;
    expect(counts.failing).toMatchObject({ succeeded: 0, requestsWhileDown: 0, seedsBelowNaive: 2 });
    expect(counts.oracle!.succeeded).toBeGreaterThan(counts.naive!.succeeded);
    expect(counts.oracle!.requestsWhileDown).toBe(0);
    expect(renderSweep(rows, 'failing').split('\n').at(-1)).toContain(' / 0 / ');
    expect(renderSweep(rows, 'failing').split('\n').at(-1)).toMatch(/\| succeeded \|$/);
    expect(renderSweep(rows, 'oracle').split('\n').at(-1)).toMatch(/\| — \|$/);
  });

  it('the defaults complete and succeed in no fewer calls than the naive loop, without a deadline, up to 30 s outages', async () => {
    const lengths = [3_000, 8_000, 15_000, 30_000];
    const scenarios = lengths.flatMap((ms) =>
      (['connection_refused', 'unavailable_503_html'] as const).map((f) => sweepScenario(ms, f, false)),
    );
    for (const { scenario, counts } of await runSweep([naive, mcpResilience], scenarios, 6)) {
      const n = counts.naive!;
      const m = counts['mcp-resilience']!;
      expect(m.completed, scenario.key).toBeGreaterThanOrEqual(n.completed);
      expect(m.succeeded, scenario.key).toBeGreaterThanOrEqual(n.succeeded);
    }
  });
});
