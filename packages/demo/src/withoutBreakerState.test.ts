import { createResilience } from '@mcp-resilience/middleware';
import { createFakeClock, createMemoryRecorder } from '@mcp-resilience/middleware/testing';
import { describe, expect, it } from 'vitest';
import { naiveOptions } from './policies.js';
import { withoutBreakerState } from './withoutBreakerState.js';

describe('withoutBreakerState', () => {
  it('keeps every call event of a naive agent but never hands its breakers to the recorder', async () => {
    const clock = createFakeClock();
    const memory = createMemoryRecorder();
    const { idempotency: _i, nonRetryableAs: _n, ...core } = naiveOptions(1);
    const r = createResilience({ ...core, clock, recorder: withoutBreakerState(memory) });
    const done = r
      .execute(async () => {
        throw Object.assign(new Error('Service Unavailable'), { status: 503 });
      })
      .catch(() => {});
    await clock.runAll();
    await done;
    expect(memory.ofType('recorder_attached')).toEqual([]);
    expect(memory.ofType('attempt_started')).toHaveLength(6);
    expect(memory.ofType('call_finished')).toHaveLength(1);
  });
});
