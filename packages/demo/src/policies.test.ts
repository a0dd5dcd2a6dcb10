import { createResilience, defaults } from '@mcp-resilience/middleware';
import { createFakeClock, createMemoryRecorder } from '@mcp-resilience/middleware/testing';
import { describe, expect, it } from 'vitest';
import { naiveOptions, resilientOptions } from './policies.js';

const coreOptions = (options: ReturnType<typeof naiveOptions>) => {
  const { idempotency: _i, nonRetryableAs: _n, ...core } = options;
  return core;
};

/** How many attempts each group makes against a function that always fails with `error`. */
async function attempts(
  group: 'naive' | 'resilient',
  error: unknown,
  recorder = createMemoryRecorder(),
): Promise<number> {
  const clock = createFakeClock();
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

  it('both retry a transient failure; the resilient group within its defaults, then only the breaker probes', async () => {
    expect(await attempts('naive', unavailable)).toBe(6);
    const recorder = createMemoryRecorder();
    await attempts('resilient', unavailable, recorder);
    const opened = recorder.events.findIndex((e) => e.type === 'breaker_transition' && e.to === 'open');
    const before = recorder.events.slice(0, opened).filter((e) => e.type === 'attempt_started');
    expect(before.length).toBeGreaterThan(1);
    expect(before.length).toBeLessThanOrEqual(defaults.retry.maxAttempts);
    // Once open, each request that reaches the server is the breaker's probe, after a half-open transition.
    let probes = 0;
    for (const e of recorder.events.slice(opened)) {
      if (e.type === 'breaker_transition' && e.to === 'half_open') probes++;
      if (e.type === 'attempt_started') expect(probes--).toBeGreaterThan(0);
    }
  });
});

describe('the canary of the resilient group', () => {
  const rateLimited = Object.assign(new Error('Too Many Requests'), {
    status: 429,
    headers: { 'retry-after': '1' },
  });

  it('sends about 10% of calls to the candidate, which does not wait out a rate limit; the shadow says so', async () => {
    const clock = createFakeClock();
    const recorder = createMemoryRecorder();
    const options = coreOptions(resilientOptions(1));
    const r = createResilience({ ...options, clock, recorder });
    for (let i = 0; i < 400; i++) {
      const done = r
        .execute(async () => {
          throw rateLimited;
        })
        .catch(() => {});
      await clock.runAll();
      await done;
    }
    const finished = recorder.ofType('call_finished');
    const byVariant = (v: string) => finished.filter((e) => e.attributes['mcp.resilience.variant'] === v);
    expect(byVariant('candidate').length).toBeGreaterThan(20); // 40 expected
    expect(byVariant('candidate').length).toBeLessThan(65);
    expect(byVariant('candidate').every((e) => e.attempts === 1)).toBe(true);
    expect(byVariant('control').every((e) => e.attempts === defaults.retry.maxAttempts)).toBe(true);
    const disagreements = recorder.ofType('shadow_classified').filter((e) => !e.agrees);
    expect(disagreements.length).toBe(byVariant('control').length * defaults.retry.maxAttempts);
    expect(disagreements[0]?.shadow).toMatchObject({ class: 'non_retryable', type: 'rate_limited' });
  });
});
