import { describe, expect, it } from 'vitest';
import { breakerTimeline } from '@/lib/data/breaker-timeline';
import { GONE_AFTER_MS, goneBreakers, type InstanceBreakerState } from '@/lib/data/breakers';
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

  it('ends a gone breaker at its last report: no state painted after it', () => {
    const gone = new Map([['s\u0001t', 5000]]);
    const rows = breakerTimeline(q, [at(2000, 'closed'), at(4000, 'open'), at(6000, 'closed')], gone);
    expect(rows[0]).toEqual({
      server: 's',
      tool: 't',
      segments: [
        { from: 2000, to: 4000, state: 'closed' },
        { from: 4000, to: 5000, state: 'open' },
      ],
      goneFrom: 5000,
    });
    // a last report at or after the window's end cuts nothing
    expect(
      breakerTimeline(q, [at(2000, 'closed')], new Map([['s\u0001t', 10_000]]))[0]!.goneFrom,
    ).toBeUndefined();
  });
});

describe('goneBreakers', () => {
  const row = (instance: string, lastSeen: number | undefined, tool = 't'): InstanceBreakerState => ({
    service: 'a',
    instance,
    server: 's',
    tool,
    state: 'closed',
    since: 0,
    stale: false,
    ...(lastSeen === undefined ? {} : { lastSeen }),
  });
  const now = 1_000_000;
  it('names a breaker gone only when every instance stopped reporting, with the newest last report', () => {
    const old = now - GONE_AFTER_MS - 1;
    const gone = goneBreakers(
      [
        row('1', old - 500),
        row('2', old),
        row('3', old, 'live'),
        row('4', now - 1000, 'live'),
        row('5', undefined, 'x'),
        row('6', old, 'x'),
      ],
      now,
    );
    expect([...gone]).toEqual([['s\u0001t', old]]);
  });
});
