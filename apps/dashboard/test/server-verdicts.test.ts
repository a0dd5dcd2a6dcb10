import { describe, expect, it } from 'vitest';
import { CANARY_RULE, canaryVerdict } from '@/lib/alerts/canary-rule';
import { shapeExperiment } from '@/lib/data/experiments';
import type { VariantCounts } from '@/lib/data/experiments-types';
import { serversDiffer, serverVerdicts } from '@/lib/data/server-verdicts';

const counts = (variant: string, calls: number, success: number): VariantCounts => ({
  variant,
  calls: { total: calls, success, failure: calls - success, rejected: 0 },
  retries: { total: 0, successful: 0 },
  avoided: 0,
  nonRetryable: { sumSeconds: 0, count: 0 },
  latency: [],
});
const pooled = (...servers: VariantCounts[][]) =>
  ['control', 'candidate'].map((name) => {
    const all = servers.flat().filter((v) => v.variant === name);
    return counts(
      name,
      all.reduce((s, v) => s + v.calls.total, 0),
      all.reduce((s, v) => s + v.calls.success, 0),
    );
  });

describe('per-server verdicts beside the pooled one', () => {
  // the candidate is clearly worse on `tickets` (the canary alert fires there), a bit better on the busier
  // `search`: pooled over both, no significant difference
  const tickets = [counts('control', 900, 890), counts('candidate', 120, 100)];
  const search = [counts('control', 9000, 8700), counts('candidate', 1000, 985)];

  it('says "Servers differ" where a server is significantly worse and the pooled verdict is not', () => {
    const experiment = shapeExperiment({
      from: 0,
      to: 1,
      variants: pooled(tickets, search),
      errors: [],
      disagreements: [],
      examples: null,
    });
    expect(experiment.comparisons[0]!.verdict).not.toBe('worse');
    // the banner's alert holds on tickets
    expect(canaryVerdict(CANARY_RULE, tickets[1]!, tickets[0]!).length).toBeGreaterThan(0);
    const servers = serverVerdicts([
      { server: 'search', variants: search },
      { server: 'tickets', variants: tickets },
    ]);
    expect(servers.map((s) => [s.server, s.comparisons[0]!.verdict])).toEqual([
      ['search', 'better'],
      ['tickets', 'worse'],
    ]);
    const differ = serversDiffer(experiment.comparisons, servers);
    expect(differ).toEqual([
      {
        candidate: 'candidate',
        pooled: experiment.comparisons[0]!.verdict,
        servers: [
          { server: 'search', verdict: 'better' },
          { server: 'tickets', verdict: 'worse' },
        ],
      },
    ]);
  });

  it('is silent when the servers agree, or only lack the evidence the pooled verdict has', () => {
    const a = [counts('control', 900, 890), counts('candidate', 120, 100)];
    const b = [counts('control', 40, 39), counts('candidate', 35, 33)];
    const experiment = shapeExperiment({
      from: 0,
      to: 1,
      variants: pooled(a, b),
      errors: [],
      disagreements: [],
      examples: null,
    });
    expect(experiment.comparisons[0]!.verdict).toBe('worse');
    const servers = serverVerdicts([
      { server: 'a', variants: a },
      { server: 'b', variants: b },
      { server: 'no-canary', variants: [] },
    ]);
    expect(servers.map((s) => s.server)).toEqual(['a', 'b']);
    expect(serversDiffer(experiment.comparisons, servers)).toEqual([]);
  });
});
