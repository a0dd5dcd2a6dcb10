import { parsePlan } from '@mcp-resilience/chaos';
import { describe, expect, it } from 'vitest';
import { planFor, weatherPlan } from './plans.js';
import { CYCLE_MS, PHASES, phaseAt } from './timeline.js';

describe('timeline', () => {
  it('covers the whole cycle without gaps', () => {
    expect(PHASES[0]?.from).toBe(0);
    expect(PHASES.at(-1)?.to).toBe(CYCLE_MS);
    for (let i = 1; i < PHASES.length; i++) expect(PHASES[i]?.from).toBe(PHASES[i - 1]?.to);
  });

  it('compresses time by the speed and repeats', () => {
    expect(phaseAt(65_000, 1).name).toBe('outage');
    expect(phaseAt(6_500, 10).name).toBe('outage');
    expect(phaseAt(CYCLE_MS + 65_000, 1).name).toBe('outage');
    expect(phaseAt(125_000, 1).name).toBe('rate_limit_storm');
  });

  it('every plan of every phase is a valid chaos plan', () => {
    for (const phase of PHASES) {
      for (const server of ['search', 'tickets'] as const)
        expect(() => parsePlan(planFor(server, phase, 10))).not.toThrow();
    }
    expect(() => parsePlan(weatherPlan)).not.toThrow();
  });

  it('takes the tickets server down during the outage, and rate-limits search during the storm', () => {
    const outage = PHASES.find((p) => p.name === 'outage')!;
    expect(planFor('tickets', outage, 1).faults[0]?.kind).toBe('outage');
    expect(planFor('search', outage, 1).faults.some((f) => f.kind === 'outage')).toBe(false);
    const storm = PHASES.find((p) => p.name === 'rate_limit_storm')!;
    expect(planFor('search', storm, 1).faults[0]).toMatchObject({ kind: 'rate_limit', retryAfter: 2 });
  });
});

describe('faults that belong to a call', () => {
  it('are drawn per call, never per request: a retry or a repeat meets the same fate', () => {
    const plans = [
      weatherPlan,
      ...PHASES.flatMap((phase) => [planFor('search', phase, 1), planFor('tickets', phase, 1)]),
    ];
    for (const plan of plans) {
      for (const fault of plan.faults) {
        if (fault.kind === 'unauthorized' || fault.kind === 'forbidden' || fault.kind === 'invalid_params')
          expect(fault).toMatchObject({ per: 'call' });
      }
    }
    expect(planFor('search', PHASES[0]!, 1).faults.some((f) => f.kind === 'unauthorized')).toBe(true);
  });
});
