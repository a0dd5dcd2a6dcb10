import { describe, expect, it } from 'vitest';
import {
  histogramQuantile,
  normalCdf,
  sampleSizePerArm,
  twoProportionTest,
  wilson,
} from '@/lib/data/experiment-stats';
import { compare, pickControl, shapeExperiment } from '@/lib/data/experiments';
import type { ExperimentData, VariantCounts } from '@/lib/data/experiments-types';

const arm = (
  variant: string,
  calls: number,
  success: number,
  retries = 0,
  retrySuccess = 0,
): VariantCounts => ({
  variant,
  calls: { total: calls, success, failure: calls - success, rejected: 0 },
  retries: { total: retries, successful: retrySuccess },
  avoided: 0,
  nonRetryable: { sumSeconds: 0, count: 0 },
  latency: [],
});

describe('statistics', () => {
  it('normal CDF matches reference values', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-1)).toBeCloseTo(0.158655254, 6);
  });

  it('Wilson intervals match published values and stay inside [0, 1]', () => {
    // Newcombe (1998), table I: 81/263 → 0.2553–0.3662; 0/10 → 0–0.2775; 1/29 → 0.0061–0.1718.
    const a = wilson(81, 263)!;
    expect([a.low, a.high].map((x) => x.toFixed(4))).toEqual(['0.2553', '0.3662']);
    const b = wilson(0, 10)!;
    expect([b.low, b.high].map((x) => x.toFixed(4))).toEqual(['0.0000', '0.2775']);
    const c = wilson(1, 29)!;
    expect([c.low, c.high].map((x) => x.toFixed(4))).toEqual(['0.0061', '0.1718']);
    expect(wilson(0, 0)).toBeNull();
  });

  it('two-proportion z-test: pooled z and a two-sided p-value', () => {
    // 90/100 vs 80/100: pooled 0.85, se = sqrt(0.85*0.15*0.02) = 0.0505, z = 1.98, p = 0.0477.
    const t = twoProportionTest(90, 100, 80, 100)!;
    expect(t.z).toBeCloseTo(1.9803, 3);
    expect(t.p).toBeCloseTo(0.0477, 3);
    expect(t.significant).toBe(true);
    expect(twoProportionTest(86, 100, 80, 100)?.significant).toBe(false);
    expect(twoProportionTest(10, 10, 5, 5)).toBeNull(); // no variance
  });

  it('sample size per arm for 80% power at 5% (two-sided)', () => {
    // Fleiss: 0.90 vs 0.95 needs 435 per arm without continuity correction (Chow et al. 4.2).
    expect(sampleSizePerArm(0.95, 0.9)).toBe(435);
    expect(sampleSizePerArm(0.5, 0.5)).toBeNull();
  });

  it('quantiles interpolate within a cumulative histogram as histogram_quantile does', () => {
    const h = [
      { le: 0.1, count: 50 },
      { le: 0.5, count: 90 },
      { le: 1, count: 100 },
      { le: Number.POSITIVE_INFINITY, count: 100 },
    ];
    expect(histogramQuantile(0.5, h)).toBeCloseTo(0.1, 9);
    expect(histogramQuantile(0.95, h)).toBeCloseTo(0.75, 9);
    expect(
      histogramQuantile(0.95, [
        { le: 0.1, count: 1 },
        { le: Number.POSITIVE_INFINITY, count: 100 },
      ]),
    ).toBe(0.1);
    expect(histogramQuantile(0.95, [])).toBeNull();
  });
});

describe('verdict', () => {
  it('prefers the variant named control, else the biggest arm', () => {
    expect(pickControl([arm('b', 5, 5), arm('control', 1, 1)])).toBe('control');
    expect(pickControl([arm('a', 5, 5), arm('b', 50, 50)])).toBe('b');
  });

  it('says worse when the candidate is significantly worse', () => {
    const c = compare(arm('candidate', 500, 430), arm('control', 5000, 4750));
    expect(c.verdict).toBe('worse');
    expect(c.text).toMatch(/^candidate is worse than control: success rate -9\.0 pts \(p < 0\.001\)\.$/);
  });

  it('says better when significantly better and nothing is worse', () => {
    const c = compare(arm('candidate', 1000, 990, 100, 90), arm('control', 9000, 8700, 900, 700));
    expect(c.verdict).toBe('better');
    expect(c.text).toContain('success rate');
    expect(c.text).toContain('retry efficiency');
  });

  it('says not yet significant, with about how many more calls, from the power calculation', () => {
    const c = compare(arm('candidate', 50, 45), arm('control', 900, 855));
    expect(c.tests[0]?.test?.p).toBeGreaterThan(0.05);
    expect(c.verdict).toBe('not_significant');
    // 435 per arm for 0.90 vs 0.95; the candidate has 50 of 950 calls: (435 - 50) × 950 / 50 = 7315 more calls.
    expect(c.moreCalls).toBe(7315);
    expect(c.text).toBe('candidate vs control: success 90.0% vs 95.0%; needs ~7,315 more calls.');
  });

  it('says insufficient below the minimum volume', () => {
    const c = compare(arm('candidate', 3, 0), arm('control', 27, 27));
    expect(c.verdict).toBe('insufficient');
    expect(c.moreCalls).toBe(270); // 27 more candidate calls at a 10% share
  });
});

describe('shapeExperiment', () => {
  it('builds the per-variant table and the confusion matrix with its diagonal from the errors', () => {
    const data: ExperimentData = {
      from: 0,
      to: 1,
      variants: [
        {
          ...arm('candidate', 10, 8, 4, 1),
          latency: [
            { le: 1, count: 10 },
            { le: Number.POSITIVE_INFINITY, count: 10 },
          ],
        },
        { ...arm('control', 90, 80, 30, 24), nonRetryable: { sumSeconds: 3, count: 6 } },
      ],
      errors: [
        { variant: 'control', errorClass: 'retryable', count: 20 },
        { variant: 'candidate', errorClass: 'retryable', count: 5 },
        { variant: 'control', errorClass: 'non_retryable', count: 6 },
      ],
      disagreements: [
        {
          variant: 'control',
          errorClass: 'retryable',
          errorType: 'unavailable',
          shadowClass: 'non_retryable',
          shadowType: 'not_found',
          count: 4,
        },
        {
          variant: 'control',
          errorClass: 'retryable',
          errorType: 'unavailable',
          shadowClass: 'retryable',
          shadowType: 'timeout',
          count: 1,
        },
      ],
      examples: [],
    };
    const e = shapeExperiment(data);
    expect(e.variants.map((v) => v.variant)).toEqual(['control', 'candidate']);
    const [control, candidate] = e.variants;
    expect(control?.wastedPer1000Calls).toBeCloseTo((6 / 90) * 1000, 9);
    expect(control?.efficiency?.rate).toBeCloseTo(0.8, 9);
    expect(candidate?.efficiency).toBeNull(); // 4 retries < 20
    expect(control?.mttfNonRetryableSeconds).toBe(0.5);
    expect(candidate?.p95Seconds).toBeCloseTo(0.95, 9);
    const cell = (p: string, s: string) =>
      e.shadow.matrix.find((m) => m.primary === p && m.shadow === s)?.count;
    expect(cell('retryable', 'non_retryable')).toBe(4);
    expect(cell('retryable', 'retryable')).toBe(21); // 25 failures, 4 left the class
    expect(cell('non_retryable', 'non_retryable')).toBe(6);
    expect(e.shadow).toMatchObject({ failures: 31, disagreements: 5, examplesAvailable: true });
    expect(e.shadow.rows[0]?.count).toBe(4);
    expect(e.comparisons.map((c) => c.candidate)).toEqual(['candidate']);
  });
});

describe('bounds', () => {
  it('shows the control and the busiest variants only', () => {
    const variants = Array.from({ length: 30 }, (_, i) => arm(`v${String(i).padStart(2, '0')}`, 100 + i, 90));
    const e = shapeExperiment({
      from: 0,
      to: 1,
      variants: [arm('control', 50, 45), ...variants],
      errors: [],
      disagreements: [],
      examples: null,
    });
    expect(e.variants).toHaveLength(20);
    expect(e.variants[0]?.variant).toBe('control');
    expect(e.variants.slice(1).map((v) => v.variant)).toEqual(
      Array.from({ length: 19 }, (_, i) => `v${String(i + 11).padStart(2, '0')}`),
    );
  });
});
