import { describe, expect, it } from 'vitest';
import { FAULTS } from '../src/faults.js';
import {
  arrivalInterval,
  evaluate,
  recordSequence,
  SCENARIOS,
  type Sequence,
  segmentAt,
} from '../src/scenarios.js';

const spec = (key: string) => SCENARIOS.find((s) => s.key === key)!;

describe('recordSequence', () => {
  it('records the same sequence for the same seed, byte for byte', () => {
    for (const s of SCENARIOS) {
      expect(JSON.stringify(recordSequence(s, 7))).toBe(JSON.stringify(recordSequence(s, 7)));
    }
  });

  it('records a different sequence for another seed', () => {
    const a = recordSequence(spec('production'), 1);
    const b = recordSequence(spec('production'), 2);
    expect(JSON.stringify(a.calls)).not.toBe(JSON.stringify(b.calls));
    expect(JSON.stringify(recordSequence(spec('flapping'), 1).segments)).not.toBe(
      JSON.stringify(recordSequence(spec('flapping'), 2).segments),
    );
  });

  it('does not depend on Math.random', () => {
    const before = JSON.stringify(recordSequence(spec('mixed'), 3));
    const random = Math.random;
    Math.random = () => 0.999;
    try {
      expect(JSON.stringify(recordSequence(spec('mixed'), 3))).toBe(before);
    } finally {
      Math.random = random;
    }
  });

  it('keeps segments sorted, inside the run and without overlaps', () => {
    for (const s of SCENARIOS) {
      for (const seed of [1, 2, 3]) {
        const { segments, durationMs } = recordSequence(s, seed);
        for (const [i, seg] of segments.entries()) {
          expect(seg.to).toBeGreaterThan(seg.from);
          expect(seg.from).toBeGreaterThanOrEqual(0);
          expect(seg.from).toBeLessThan(durationMs);
          if (i > 0) expect(seg.from).toBeGreaterThanOrEqual(segments[i - 1]!.to);
        }
      }
    }
  });

  it('makes about 73% of the production failures non-retryable', () => {
    let failures = 0;
    let permanent = 0;
    for (const seed of [1, 2, 3]) {
      const sequence = recordSequence(spec('production'), seed);
      for (const call of sequence.calls) {
        const r = evaluate(sequence, call, 1, call.at);
        if (r.ok) continue;
        failures++;
        if (!FAULTS[r.fault].transient) permanent++;
      }
    }
    expect(permanent / failures).toBeGreaterThan(0.69);
    expect(permanent / failures).toBeLessThan(0.77);
  });
});

describe('evaluate', () => {
  const sequence: Sequence = {
    scenario: 'hand-made',
    seed: 0,
    durationMs: 10_000,
    deadlineMs: 30_000,
    segments: [
      { from: 1_000, to: 2_000, state: { kind: 'down', fault: 'connection_refused' } },
      { from: 3_000, to: 5_500, state: { kind: 'rate_limited' } },
    ],
    calls: [
      {
        id: 0,
        at: 0,
        intrinsic: 'invalid_argument_400',
        attempts: [{ latencyMs: 200, noise: 'bad_gateway_502' }, { latencyMs: 200 }],
      },
      { id: 1, at: 0, attempts: [{ latencyMs: 150 }] },
    ],
  };
  const [bad, good] = sequence.calls as [Sequence['calls'][0], Sequence['calls'][0]];

  it('applies the endpoint state first, then the request noise, then the call fault', () => {
    expect(evaluate(sequence, bad, 1, 1_500)).toMatchObject({
      ok: false,
      fault: 'connection_refused',
      down: true,
    });
    expect(evaluate(sequence, bad, 1, 0)).toMatchObject({
      ok: false,
      fault: 'bad_gateway_502',
      transient: true,
    });
    expect(evaluate(sequence, bad, 2, 0)).toMatchObject({
      ok: false,
      fault: 'invalid_argument_400',
      transient: false,
    });
    expect(evaluate(sequence, good, 1, 0)).toEqual({ ok: true, latencyMs: 150 });
  });

  it('announces the seconds left in a rate-limit window, rounded up', () => {
    expect(evaluate(sequence, good, 1, 3_000)).toMatchObject({ fault: 'rate_limited_429', retryAfterS: 3 });
    expect(evaluate(sequence, good, 1, 5_000)).toMatchObject({ fault: 'rate_limited_429', retryAfterS: 1 });
    expect(evaluate(sequence, good, 1, 5_500)).toEqual({ ok: true, latencyMs: 150 });
  });

  it('finds the segment in force with [from, to) bounds', () => {
    expect(segmentAt(sequence, 999)).toBeUndefined();
    expect(segmentAt(sequence, 1_000)?.from).toBe(1_000);
    expect(segmentAt(sequence, 2_000)).toBeUndefined();
    expect(segmentAt(sequence, 5_499)?.from).toBe(3_000);
  });
});

describe('the incident shapes of issue #11', () => {
  const downSegments = (key: string, seed: number) =>
    recordSequence(spec(key), seed).segments.filter((s) => s.state.kind === 'down');

  it('runs them at 5 calls/s with 30 s deadlines', () => {
    for (const key of ['outage90', 'flapfast', 'twooutages', 'brownout']) {
      const sequence = recordSequence(spec(key), 1);
      expect(sequence.deadlineMs).toBe(30_000);
      expect(sequence.calls.length).toBe(5 * (sequence.durationMs / 1000));
    }
  });

  it('90 s outage: one down period of exactly 90 s', () => {
    const [outage, ...rest] = downSegments('outage90', 1);
    expect(rest).toEqual([]);
    expect(outage!.to - outage!.from).toBe(90_000);
  });

  it('fast flapping: up 5-11 s, down 2-4 s', () => {
    for (const seed of [1, 2, 3]) {
      const down = downSegments('flapfast', seed);
      expect(down.length).toBeGreaterThan(10);
      for (const [i, s] of down.entries()) {
        expect(s.to - s.from).toBeGreaterThanOrEqual(2_000 - 1);
        expect(s.to - s.from).toBeLessThanOrEqual(4_000 + 1);
        if (i > 0) {
          const up = s.from - down[i - 1]!.to;
          expect(up).toBeGreaterThanOrEqual(5_000 - 1);
          expect(up).toBeLessThanOrEqual(11_000 + 1);
        }
      }
    }
  });

  it('two outages of 12-15 s', () => {
    for (const seed of [1, 2, 3]) {
      const down = downSegments('twooutages', seed);
      expect(down).toHaveLength(2);
      for (const s of down) {
        expect(s.to - s.from).toBeGreaterThanOrEqual(12_000 - 1);
        expect(s.to - s.from).toBeLessThanOrEqual(15_000 + 1);
      }
    }
  });

  it('brownout: 30-50% of requests fail while the endpoint is never down, and a retry meets its own draw', () => {
    const sequence = recordSequence(spec('brownout'), 1);
    const brown = sequence.segments.filter((s) => s.state.kind === 'brownout');
    expect(brown.length).toBeGreaterThan(10);
    for (const s of brown) {
      if (s.state.kind !== 'brownout') continue;
      expect(s.state.rate).toBeGreaterThanOrEqual(0.3);
      expect(s.state.rate).toBeLessThanOrEqual(0.5);
    }
    let inside = 0;
    let failed = 0;
    let retriesFailed = 0;
    for (const call of sequence.calls) {
      if (call.at < 30_000 || call.at >= 270_000 || call.intrinsic) continue;
      inside++;
      const first = evaluate(sequence, call, 1, call.at);
      const second = evaluate(sequence, call, 2, call.at + 1_000);
      if (!first.ok) {
        failed++;
        expect(first).toMatchObject({ down: false, transient: true });
      }
      if (!second.ok) retriesFailed++;
      // the same request at another moment of the same segment meets the same draw
      expect(evaluate(sequence, call, 1, call.at + 1).ok).toBe(first.ok);
    }
    expect(failed / inside).toBeGreaterThan(0.3);
    expect(failed / inside).toBeLessThan(0.5);
    // independent failures: a retry fails about as often as a first request
    expect(Math.abs(retriesFailed / inside - failed / inside)).toBeLessThan(0.06);
  });
});

describe('the overload scenario', () => {
  it('spikes the arrival rate from 12.5 to about 30 calls/s for 20 s on a 20 requests/s server', () => {
    const s = spec('overload');
    const sequence = recordSequence(s, 1);
    expect(sequence.capacity?.requestsPerSecond).toBe(20);
    const inWindow = (from: number, to: number) =>
      sequence.calls.filter((c) => c.at >= from && c.at < to).length / ((to - from) / 1000);
    expect(inWindow(0, 60_000)).toBeCloseTo(12.5, 1);
    expect(inWindow(60_000, 80_000)).toBeGreaterThan(29);
    expect(inWindow(60_000, 80_000)).toBeLessThan(31);
    expect(inWindow(80_000, 300_000)).toBeCloseTo(12.5, 1);
  });

  it('arrivalInterval takes the load phase in force, and refuses a non-positive interval', () => {
    const load = [{ from: 1_000, to: 2_000, callEveryMs: 10 }];
    expect(arrivalInterval({ callEveryMs: 100, load }, 999)).toBe(100);
    expect(arrivalInterval({ callEveryMs: 100, load }, 1_000)).toBe(10);
    expect(arrivalInterval({ callEveryMs: 100, load }, 2_000)).toBe(100);
    expect(() => arrivalInterval({ callEveryMs: 0 }, 0)).toThrow(/callEveryMs/);
  });
});
