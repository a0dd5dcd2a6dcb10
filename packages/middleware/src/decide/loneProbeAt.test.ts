import { describe, expect, it } from 'vitest';
import { loneProbeAt } from './loneProbeAt.js';

describe('loneProbeAt', () => {
  // the outage began at 0; a call without a deadline of its own may wait 60 s
  const at = (now: number, dueAt: number) => loneProbeAt({ now, dueAt, outageStart: 0, spanMs: 60_000 });

  it("moves a due probe earlier to the naive loop's next retry when that comes first", () => {
    expect(at(10_000, 19_000)).toBe(15_000);
    expect(at(20_000, 40_000)).toBe(31_000);
  });

  it("moves a due probe later to the naive loop's next retry when that comes within one more wait", () => {
    // due at 12.8 s, asked at 8.5 s: the retry at 15 s comes before 12.8 + 4.3 = 17.1 s, and replaces it
    expect(at(8_500, 12_800)).toBe(15_000);
    expect(at(8_500, 11_750)).toBe(15_000); // exactly one more wait: 11.75 + 3.25
  });

  it('leaves it due when the naive retry is further', () => {
    expect(at(8_500, 11_700)).toBe(11_700);
    expect(at(0, 400)).toBe(400);
  });

  it("leaves it due once the naive loop's first call is over: past +31 s, or the call's limit", () => {
    expect(at(31_000, 45_000)).toBe(45_000);
    expect(loneProbeAt({ now: 8_000, dueAt: 12_000, outageStart: 0, spanMs: 10_000 })).toBe(12_000);
    expect(loneProbeAt({ now: 4_000, dueAt: 9_000, outageStart: 0, spanMs: 10_000 })).toBe(7_000);
  });

  it("counts the naive loop's retries from the outage's start", () => {
    expect(loneProbeAt({ now: 105_000, dueAt: 120_000, outageStart: 100_000, spanMs: 60_000 })).toBe(107_000);
  });
});
