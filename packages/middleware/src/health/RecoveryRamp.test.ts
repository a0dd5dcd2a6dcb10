import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../testing/createFakeClock.js';
import type { Admitted } from './GateVerdict.js';
import { type RampStep, RecoveryRamp } from './RecoveryRamp.js';

const released = (step: RampStep): Admitted => {
  if (step.kind !== 'release') throw new Error(`expected a release, got ${step.kind}`);
  return step.verdict;
};

describe('RecoveryRamp', () => {
  it('is not running until a recovery, and then starts at twice the probes', () => {
    const ramp = new RecoveryRamp(createFakeClock(0), () => {});
    expect([ramp.running, ramp.absorbsFailures]).toEqual([false, false]);
    ramp.start(1);
    expect([ramp.running, ramp.size, ramp.absorbsFailures]).toEqual([true, 2, true]);
  });

  it('doubles per round trip in slow start, halves once per round trip on failures, and absorbs them until the floor', () => {
    const ramp = new RecoveryRamp(createFakeClock(0), () => {});
    ramp.start(1);
    const a = released(ramp.step(0));
    const b = released(ramp.step(0));
    expect(ramp.step(0)).toEqual({ kind: 'full' });
    ramp.ended(a, 'success', 0);
    ramp.ended(b, 'success', 0);
    expect(ramp.size).toBe(4);
    const sent = [0, 1, 2, 3].map(() => released(ramp.step(0)));
    ramp.ended(sent[0]!, 'failure', 0);
    ramp.ended(sent[1]!, 'failure', 0); // sent before the cut: no second cut
    expect(ramp.size).toBe(2);
    ramp.ended(sent[2]!, 'neutral', 0);
    ramp.ended(sent[3]!, 'neutral', 0);
    const after = released(ramp.step(0));
    ramp.ended(after, 'failure', 0);
    expect(ramp.size).toBe(1);
    expect(ramp.absorbsFailures).toBe(false); // at the floor, failures count for the breaker again
  });

  it('paces releases at the smoothed round trip / window, calling back when the next is due', async () => {
    const clock = createFakeClock(0);
    let paced = 0;
    const ramp = new RecoveryRamp(clock, () => paced++);
    ramp.start(1);
    const first = released(ramp.step(0));
    await clock.advance(100);
    ramp.ended(first, 'success', clock.now()); // RTT 100, window 3
    released(ramp.step(100));
    expect(ramp.step(100)).toEqual({ kind: 'paced' });
    await clock.advance(33);
    expect(paced).toBe(0);
    await clock.advance(1);
    expect(paced).toBe(1);
    expect(released(ramp.step(134)).releasedAt).toBe(134);
  });

  it('ends when nobody waits; after a failed ramp the next one starts without slow start', () => {
    const ramp = new RecoveryRamp(createFakeClock(0), () => {});
    ramp.start(1);
    const a = released(ramp.step(0));
    ramp.ended(a, 'failure', 0);
    const b = released(ramp.step(0)); // window 1
    ramp.start(1); // a new recovery before the backlog drained
    ramp.ended(b, 'success', 0);
    expect(ramp.size).toBe(2 + 0.5); // congestion avoidance: + 1 / window
    ramp.stop();
    expect(ramp.running).toBe(false);
  });
});
