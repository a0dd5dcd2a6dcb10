import { describe, expect, it } from 'vitest';
import { FAULTS } from '../src/faults.js';
import { evaluate, recordSequence, SCENARIOS, type Sequence, segmentAt } from '../src/scenarios.js';

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
