import { describe, expect, it } from 'vitest';
import { compareChartsStart } from '@/lib/data/compare-charts-start';
import { chartsStart } from '@/lib/data/data-start';
import type { CallsPoint, CompareGroup, Series } from '@/lib/data/types';

/* Issue #22: a fresh demo on the 1h range filled only the right edge of each chart. */

const STEP = 30_000;
const T0 = 1_800_000_000_000;
/** An hour of 30 s buckets with calls from bucket `from` on. */
const calls = (from: number): Series<CallsPoint> => ({
  step: STEP,
  points: Array.from({ length: 120 }, (_, k) => ({
    t: T0 + k * STEP,
    success: k >= from ? 3 : 0,
    failure: 0,
    rejected: 0,
  })),
});

describe('chartsStart', () => {
  it('starts the charts at the first bucket with data when the data began later in the range', () => {
    expect(chartsStart({ calls: calls(112) }, [])).toBe(T0 + 112 * STEP);
  });
  it('starts at an earlier mark (a breaker transition before the first calls), on the bucket grid', () => {
    const mark = {
      t: T0 + 100 * STEP + 7_000,
      kind: 'transition' as const,
      state: 'open',
      label: 'x',
      count: 1,
    };
    expect(chartsStart({ calls: calls(112) }, [mark])).toBe(T0 + 100 * STEP);
  });
  it('keeps the whole range when the data begins within its first 5%, and says nothing without data', () => {
    expect(chartsStart({ calls: calls(5) }, [])).toBe(T0);
    expect(chartsStart({ calls: calls(7) }, [])).toBe(T0 + 7 * STEP);
    expect(chartsStart({ calls: calls(999) }, [])).toBeUndefined();
  });
});

describe('compareChartsStart', () => {
  const group = (from: number): CompareGroup =>
    ({
      key: `g${from}`,
      calls: calls(from),
      efficiency: { step: STEP, points: [] },
    }) as unknown as CompareGroup;
  it("starts compare mode's charts at the earliest group's first data, like the overview's", () => {
    expect(compareChartsStart([group(112), group(100)], [])).toBe(T0 + 100 * STEP);
    expect(compareChartsStart([group(112), group(3)], [])).toBe(T0);
    expect(compareChartsStart([group(999)], [])).toBeUndefined();
    expect(compareChartsStart([], [])).toBeUndefined();
  });
});
