import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../src/metrics.js';
import { oracle, planStep } from '../src/oracle.js';
import { mcpResilience, naive } from '../src/policies.js';
import { type RecordedCall, recordSequence, SCENARIOS, type Sequence } from '../src/scenarios.js';
import { simulate } from '../src/simulate.js';

const calls: RecordedCall[] = [
  // arrives during the first outage: can succeed once it ends
  { id: 0, at: 2_000, attempts: [{ latencyMs: 100 }, { latencyMs: 100 }] },
  // bad arguments, endpoint up: one request, the error, nothing else
  { id: 1, at: 6_000, intrinsic: 'invalid_argument_400', attempts: [{ latencyMs: 100 }, { latencyMs: 100 }] },
  // its first request meets a transient fault whatever the time: worth sending anyway, the second succeeds
  { id: 2, at: 7_000, attempts: [{ latencyMs: 100, noise: 'bad_gateway_502' }, { latencyMs: 100 }] },
  // arrives in the second outage, which outlasts its deadline: nothing can succeed
  { id: 3, at: 25_000, attempts: [{ latencyMs: 100 }, { latencyMs: 100 }] },
];
/** An endpoint down from 1 s to 5 s and again from 20 s to 60 s; four calls. */
const sequence: Sequence = {
  scenario: 'hand-made',
  seed: 1,
  durationMs: 10_000,
  deadlineMs: 30_000,
  segments: [
    { from: 1_000, to: 5_000, state: { kind: 'down', fault: 'connection_refused' } },
    { from: 20_000, to: 60_000, state: { kind: 'down', fault: 'unavailable_503_html' } },
  ],
  calls,
};
const [waits, invalid, noisy, doomed] = calls as [RecordedCall, RecordedCall, RecordedCall, RecordedCall];

describe('planStep', () => {
  it('waits until the endpoint recovers', () => {
    expect(planStep(sequence, waits, 1, 2_000, 32_000)).toEqual({ at: 5_000, succeeds: true });
  });

  it('sends a doomed request when it leads to one that succeeds', () => {
    expect(planStep(sequence, noisy, 1, 7_000, 37_000)).toEqual({ at: 7_000, succeeds: false });
    expect(planStep(sequence, noisy, 2, 7_030, 37_000)).toEqual({ at: 7_030, succeeds: true });
  });

  it('finds nothing for a permanent fault or an outage past the deadline', () => {
    expect(planStep(sequence, invalid, 1, 6_000, 36_000)).toBeUndefined();
    expect(planStep(sequence, doomed, 1, 25_000, 55_000)).toBeUndefined();
  });
});

describe('the oracle policy', () => {
  it('never sends to a down endpoint, sends a permanent fault once, and gives up at once when nothing can work', async () => {
    const run = await simulate(sequence, oracle);
    const [a, b, c, d] = run.calls;
    expect(a).toMatchObject({ ok: true, start: 2_000, end: 5_100 });
    expect(a!.attempts).toHaveLength(1);
    expect(b).toMatchObject({ ok: false, start: 6_000, end: 6_050 });
    expect(b!.attempts).toHaveLength(1);
    expect(c).toMatchObject({ ok: true, end: 7_130 });
    expect(c!.attempts.map((x) => x.ok)).toEqual([false, true]);
    expect(d).toMatchObject({ ok: false, start: 25_000, end: 25_000 });
    expect(d!.attempts).toHaveLength(0);
    expect(computeMetrics(run.calls)).toMatchObject({
      requestsWhileDown: 0,
      retries: 1,
      successfulRetries: 1,
    });
  });

  it('succeeds at least as often as any other policy on a recorded scenario', async () => {
    const recorded = recordSequence(SCENARIOS.find((s) => s.key === 'outage')!, 5);
    const short = { ...recorded, calls: recorded.calls.filter((c) => c.at >= 50_000 && c.at < 130_000) };
    const best = computeMetrics((await simulate(short, oracle)).calls);
    for (const policy of [naive, mcpResilience]) {
      const m = computeMetrics((await simulate(short, policy)).calls);
      expect(best.succeeded).toBeGreaterThanOrEqual(m.succeeded);
    }
    expect(best.requestsWhileDown).toBe(0);
  });
});

describe('simulate', () => {
  it('replays a recorded sequence identically, run after run', async () => {
    const recorded = recordSequence(SCENARIOS.find((s) => s.key === 'blips')!, 2);
    const short = { ...recorded, calls: recorded.calls.slice(0, 600) };
    const first = computeMetrics((await simulate(short, mcpResilience)).calls);
    const second = computeMetrics((await simulate(short, mcpResilience)).calls);
    expect(second).toEqual(first);
  });
});
