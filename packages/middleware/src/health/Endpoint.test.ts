import { describe, expect, it } from 'vitest';
import { defaults } from '../options.js';
import { createFakeClock } from '../testing/createFakeClock.js';
import { Endpoint } from './Endpoint.js';

describe('Endpoint', () => {
  const create = (adaptiveBackoff: boolean) => {
    const clock = createFakeClock(0);
    const options = { ...defaults, breakerJitter: 0, breakerMaxBreakMs: 4_000, adaptiveBackoff };
    return { clock, endpoint: new Endpoint('e', {}, options, clock, () => {}) };
  };
  /** Two past outages of 3 s, then a new one whose fifth failed attempt, 400 ms in, opens the breaker. */
  const outages = async ({ clock, endpoint }: ReturnType<typeof create>) => {
    for (const start of [0, 10_000]) {
      endpoint.history.onFailure(start);
      endpoint.history.onSuccess(start + 3_000, start + 3_000, 10);
    }
    await clock.advance(20_000);
    endpoint.history.onFailure(20_000);
    await clock.advance(400);
    for (let i = 0; i < 5; i++) endpoint.breaker.onAttemptFailure(clock.now(), false, i);
  };

  it("probes when the endpoint's past outages say this one ends", async () => {
    const e = create(true);
    await outages(e);
    expect(e.endpoint.breaker.openUntil).toBe(20_400 + 2_600);
  });

  it('probes after breakerBreakMs without adaptiveBackoff', async () => {
    const e = create(false);
    await outages(e);
    expect(e.endpoint.breaker.openUntil).toBe(20_400 + defaults.breakerBreakMs);
  });
});
