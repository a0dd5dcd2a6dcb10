import { describe, expect, it } from 'vitest';
import { breakerTimeline } from '@/lib/data/breaker-timeline';
import type { StateChange } from '@/lib/data/primitives';

const q = { from: 1000, to: 10_000, filters: {} };
const at = (t: number, worst: StateChange['worst'], tool = 't'): StateChange => ({
  server: 's',
  tool,
  t,
  worst,
});

describe('breakerTimeline: segments from the backends state changes', () => {
  it('starts a breaker at its first change (no state before its data), the last segment to the window end', () => {
    expect(breakerTimeline(q, [at(4000, 'closed'), at(6000, 'open')])).toEqual([
      {
        server: 's',
        tool: 't',
        segments: [
          { from: 4000, to: 6000, state: 'closed' },
          { from: 6000, to: 10_000, state: 'open' },
        ],
      },
    ]);
  });

  it('keeps the last of changes at the same time, merges equal neighbours and clamps to the window', () => {
    const rows = breakerTimeline(q, [
      at(0, 'closed'),
      at(5000, 'open'),
      at(5000, 'closed'),
      at(7000, 'half_open'),
    ]);
    expect(rows[0]!.segments).toEqual([
      { from: 1000, to: 7000, state: 'closed' },
      { from: 7000, to: 10_000, state: 'half_open' },
    ]);
  });

  it('gives one row per breaker, by server then tool, a per-server breaker with tool null', () => {
    const rows = breakerTimeline(q, [at(2000, 'open', 'b'), at(2000, 'closed', ''), at(3000, 'closed', 'a')]);
    expect(rows.map((r) => [r.tool, r.segments[0]!.state])).toEqual([
      [null, 'closed'],
      ['a', 'closed'],
      ['b', 'open'],
    ]);
  });
});
