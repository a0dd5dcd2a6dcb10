import { describe, expect, it } from 'vitest';
import { efficiencySummary } from '../lib/alerts/efficiency-summary';
import { BUILT_IN_RULE } from '../lib/alerts/rule';

const now = Date.UTC(2026, 11, 3, 13, 0, 0);
const minute = 60_000;
const reading = (minutesOfData: number | null) => ({
  server: 'weather',
  longEff: 0.2,
  shortEff: 0.1,
  retries: 30,
  dataStart: minutesOfData === null ? null : now - minutesOfData * minute,
});

describe('efficiencySummary', () => {
  it('prints both windows when the data fills them', () => {
    expect(efficiencySummary(BUILT_IN_RULE, reading(null), now)).toBe(
      'Retry efficiency for weather is 20% over 60m (10% over 5m; 30 retries; target 80%)',
    );
  });

  it('prints the long window clipped to the data, and the short one whole, when the data began between them', () => {
    expect(efficiencySummary(BUILT_IN_RULE, reading(12), now)).toBe(
      'Retry efficiency for weather is 20% over 12m (data since 12:48 UTC) (10% over 5m; 30 retries; target 80%)',
    );
  });

  it('prints one value and one span when the data began inside the short window (both read the same data)', () => {
    expect(efficiencySummary(BUILT_IN_RULE, reading(3), now)).toBe(
      'Retry efficiency for weather is 20% over 3m (data since 12:57 UTC; 30 retries; target 80%)',
    );
  });

  it('says there are no retries', () => {
    expect(efficiencySummary(BUILT_IN_RULE, { ...reading(3), longEff: Number.NaN }, now)).toBe(
      'No retries for weather',
    );
  });
});
