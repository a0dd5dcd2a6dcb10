import { describe, expect, it } from 'vitest';
import type { Classification } from '../classify/Classification.js';
import { defaults } from '../options.js';
import { createFakeClock } from '../testing/createFakeClock.js';
import { Endpoint, type EndpointOptions } from './Endpoint.js';
import { GO, GO_PROBE } from './GateVerdict.js';

const down: Classification = {
  class: 'retryable',
  type: 'server_error',
  execution: 'unknown',
  source: 'test',
};
const invalid: Classification = { ...down, class: 'non_retryable', type: 'invalid_params' };

describe('Endpoint', () => {
  const create = (adaptiveBackoff = true, options: Partial<EndpointOptions> = {}) => {
    const clock = createFakeClock(0);
    const all = {
      ...defaults,
      breakerJitter: 0,
      breakerMaxBreakMs: 4_000,
      breakerHoldMaxMs: 4_000,
      adaptiveBackoff,
      ...options,
    };
    return { clock, endpoint: new Endpoint('e', {}, all, clock, () => {}) };
  };
  const attempt = (callId: number, start: number, retry = false) => ({ callId, start, retry });
  /** Five attempts of five calls fail at `now`: the breaker opens. */
  const failFive = (endpoint: Endpoint, now: number) => {
    for (let i = 0; i < 5; i++) endpoint.attemptFailed(GO, down, attempt(i, now), now);
  };
  /** Two past outages of 3 s, then a new one whose fifth failed attempt, 400 ms in, opens the breaker. */
  const outages = async ({ clock, endpoint }: ReturnType<typeof create>) => {
    for (const start of [0, 10_000]) {
      await clock.advance(start - clock.now());
      endpoint.attemptFailed(GO, down, attempt(1, start), start);
      endpoint.attemptSucceeded(GO, attempt(2, start + 3_000), start + 3_000, true);
    }
    await clock.advance(20_000 - clock.now());
    endpoint.attemptFailed(GO, down, attempt(3, 20_000), 20_000);
    await clock.advance(400);
    failFive(endpoint, clock.now());
  };

  it("probes when the endpoint's past outages say this one ends", async () => {
    const e = create(true);
    await outages(e);
    expect(e.endpoint.health().pastOutagesMs).toEqual([3_000, 3_000]);
    expect(e.endpoint.breaker.openUntil).toBe(20_400 + 2_600);
    expect(e.endpoint.breaker.outageSince).toBe(20_400);
  });

  it('probes after breakerBreakMs without adaptiveBackoff', async () => {
    const e = create(false);
    await outages(e);
    expect(e.endpoint.breaker.openUntil).toBe(20_400 + defaults.breakerBreakMs);
  });

  it('remembers a Retry-After; a non-retryable failure says nothing about health', () => {
    const { endpoint } = create();
    const limited: Classification = {
      ...down,
      class: 'conditional',
      type: 'rate_limited',
      retryAfterMs: 3_000,
    };
    expect(endpoint.attemptFailed(GO, limited, attempt(1, 0), 100)).toBe(true);
    expect(endpoint.retryAfterMs(1_100)).toBe(2_000);
    for (let i = 0; i < 10; i++) expect(endpoint.attemptFailed(GO, invalid, attempt(i, 0), 200)).toBe(false);
    expect(endpoint.breaker.state).toBe('closed');
    expect(endpoint.breaker.consecutiveFailures).toBe(1);
  });

  it('judges the bet from the outage age: a young outage is worth waiting for, an old one is not', async () => {
    const { clock, endpoint } = create(false);
    failFive(endpoint, 0);
    // with its own 30 s limit, odds 30/(a+30) >= 0.25 until the outage is 90 s old
    expect(endpoint.recoveryLikely(0, 30_000, false)).toBe(true);
    expect(endpoint.recoveryLikely(90_000, 120_000, false)).toBe(true);
    expect(endpoint.recoveryLikely(90_001, 120_001, false)).toBe(false);
    // without a limit of its own, only while recovery is likely (odds >= 1/2): w >= a
    expect(endpoint.recoveryLikely(30_000, 60_000, true)).toBe(true);
    expect(endpoint.recoveryLikely(30_001, 60_000, true)).toBe(false);
    await clock.advance(0);
  });

  it('a failed probe re-opens the breaker; a successful one closes it and ends the outage', async () => {
    const { clock, endpoint } = create(false);
    failFive(endpoint, 0);
    await clock.advance(defaults.breakerBreakMs);
    expect(endpoint.breaker.admit(clock.now())).toEqual({ admitted: true, probe: true });
    endpoint.attemptFailed(GO_PROBE, down, attempt(9, clock.now()), clock.now());
    expect(endpoint.breaker.state).toBe('open');
    expect(endpoint.breaker.outageSince).toBe(0);
    await clock.runAll(1);
    endpoint.breaker.admit(clock.now());
    endpoint.attemptSucceeded(GO_PROBE, attempt(10, clock.now()), clock.now(), true);
    expect(endpoint.breaker.state).toBe('closed');
    expect(endpoint.breaker.outageSince).toBeUndefined();
    expect(endpoint.health().pastOutagesMs).toEqual([clock.now()]);
  });

  it('a call that failed for good counts once for the failure rate, only when its failure says the endpoint is unhealthy', () => {
    const { endpoint } = create(false, { breakerMinimumCalls: 2 });
    endpoint.callFailed(invalid, 1, 0);
    endpoint.callFailed(invalid, 2, 0);
    expect(endpoint.breaker.state).toBe('closed');
    endpoint.callFailed(down, 3, 0);
    endpoint.callFailed(down, 4, 0);
    expect(endpoint.breaker.state).toBe('open');
  });

  it('shares its health: a store reads it and sets it', async () => {
    const { clock, endpoint } = create(false);
    endpoint.adopt({ retryAfterUntil: 5_000, pastOutagesMs: [1_000, 2_000] }, 0);
    expect(endpoint.retryAfterMs(1_000)).toBe(4_000);
    endpoint.adopt({ retryAfterUntil: 3_000 }, 0); // an earlier one does not shorten it
    expect(endpoint.health()).toEqual({ retryAfterUntil: 5_000, pastOutagesMs: [1_000, 2_000] });
    // another process saw the endpoint down and probes it until 10 s: this breaker opens until then
    endpoint.adopt({ openUntil: 10_000, outageSince: -2_000 }, 0);
    expect(endpoint.snapshot(0)).toMatchObject({ state: 'open', openUntil: 10_000, outageSince: -2_000 });
    expect(endpoint.health()).toMatchObject({ openUntil: 10_000, outageSince: -2_000 });
    endpoint.adopt({ openUntil: 8_000 }, 0); // says less: ignored
    expect(endpoint.breaker.openUntil).toBe(10_000);
    await clock.advance(10_000);
    expect(endpoint.state).toBe('half_open');
  });
});
