import { describe, expect, it } from 'vitest';
import { coveredMs } from '@/lib/data/covered-time';
import { newestExportSeen } from '@/lib/data/newest-export-seen';

/*
 * Issue #22: an instance whose export interval could not be measured (calls in fewer than three exports) is
 * still located: its newest export seen, dated within the scrape that saw it, so a still-filling bucket that
 * holds its count is a gap (`coveredMs` null) instead of a rate over a guessed time.
 */

const T = 1_800_000_000_000;
const S = 15_000;

describe('newestExportSeen', () => {
  it("dates a fresh series' first sample as its first export, within the scrape that saw it", () => {
    const points: Array<[number, number]> = [
      [T + 2 * S, 120],
      [T + 3 * S, 120],
    ];
    expect(newestExportSeen(points, S, Number.POSITIVE_INFINITY, T)).toBe(T + 2 * S - S / 2);
    // a series already there when the samples begin shows no export
    expect(newestExportSeen(points, S, Number.POSITIVE_INFINITY, T + 2 * S)).toBeUndefined();
  });

  it('takes the newest change, and dates one seen past "now" between its scrape and now', () => {
    const points: Array<[number, number]> = [
      [T, 120],
      [T + S, 240],
      [T + 2 * S, 240],
      [T + 3 * S, 360],
    ];
    expect(newestExportSeen(points, S, Number.POSITIVE_INFINITY, T)).toBe(T + 3 * S - S / 2);
    const until = T + 3 * S - 5_000;
    expect(newestExportSeen(points, S, until, T)).toBe((T + 2 * S + until) / 2);
  });
});

describe('coveredMs with an instance of unknown interval', () => {
  const steady = { service: 'a', exportAt: T + 50_000, exportMs: 60_000, steady: true };
  it('is null when it exported in the bucket: the time its count covers is not known', () => {
    const fresh = { service: 'a', exportAt: T + 40_000, exportMs: 0 };
    expect(coveredMs(T + 30_000, T + 55_000, [steady, fresh], 30_000)).toBeNull();
  });

  it('takes one whose calls all began in the bucket (a first cumulative export) to cover the bucket so far', () => {
    const burst = { service: 'a', exportAt: T + 40_000, exportMs: 0, callsFrom: T + 31_000 };
    expect(coveredMs(T + 30_000, T + 55_000, [burst], 30_000)).toBe(25_000);
    expect(coveredMs(T + 30_000, T + 55_000, [steady, burst], 30_000)).toBe((60_000 + 25_000) / 2);
    // its calls began before the bucket: not known
    expect(coveredMs(T + 30_000, T + 55_000, [{ ...burst, callsFrom: T + 20_000 }], 30_000)).toBeNull();
  });

  it('leaves it out when its newest export is before the bucket', () => {
    const idle = { service: 'a', exportAt: T - 200_000, exportMs: 0 };
    expect(coveredMs(T + 30_000, T + 55_000, [steady, idle], 30_000)).toBe(60_000);
    expect(coveredMs(T + 30_000, T + 55_000, [steady], 30_000)).toBe(60_000);
  });
});
