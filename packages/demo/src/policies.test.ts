import {
  createFakeClock,
  createMemoryRecorder,
  createResilience,
  defaults,
} from '@mcp-resilience/middleware';
import { describe, expect, it } from 'vitest';
import { naiveOptions, resilientOptions } from './policies.js';

const coreOptions = (options: ReturnType<typeof naiveOptions>) => {
  const { idempotency: _i, nonRetryableAs: _n, ...core } = options;
  return core;
};

/** How many attempts each group makes against a function that always fails with `error`. */
async function attempts(group: 'naive' | 'resilient', error: unknown): Promise<number> {
  const clock = createFakeClock();
  const recorder = createMemoryRecorder();
  const options = coreOptions(group === 'naive' ? naiveOptions(1) : resilientOptions(1));
  const r = createResilience({ ...options, clock, recorder });
  const done = r
    .execute(async () => {
      throw error;
    })
    .catch(() => {});
  await clock.runAll();
  await done;
  return recorder.ofType('attempt_started').length;
}

describe('the demo groups', () => {
  const invalid = Object.assign(new Error('Invalid city: Atlantis'), { status: 400 });
  const unavailable = Object.assign(new Error('Service Unavailable'), { status: 503 });

  it('the naive group retries everything 5 times, the resilient group never retries a bad argument', async () => {
    expect(await attempts('naive', invalid)).toBe(6);
    expect(await attempts('resilient', invalid)).toBe(1);
  });

  it('both retry a transient failure; the resilient group within its defaults', async () => {
    expect(await attempts('naive', unavailable)).toBe(6);
    expect(await attempts('resilient', unavailable)).toBe(defaults.maxAttempts);
  });
});
