import { afterEach, describe, expect, it, vi } from 'vitest';
import { createResilience, type Resilience } from '../../createResilience.js';
import { createMemoryRecorder } from '../../record/createMemoryRecorder.js';
import { createFakeClock, type FakeClock } from '../../testing/createFakeClock.js';
import { createMemoryHealthStore, type MemoryHealthHub } from '../store/createMemoryHealthStore.js';
import { FLEET_BREAK_SHARE, STREAK_TTL_MS } from './FleetSync.js';

const down = () => {
  throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
};
/** `fn`, counting its calls in `sent[key]`. */
const counted =
  <T>(sent: Record<string, number>, key: string, fn: () => T) =>
  () => {
    sent[key] = (sent[key] ?? 0) + 1;
    return fn();
  };
const settle = async (clock: FakeClock) => {
  for (let i = 0; i < 5; i++) await clock.advance(0);
};

describe('FleetSync (shared health on the in-memory store)', () => {
  let replicas: Resilience[] = [];
  afterEach(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    replicas = [];
    vi.restoreAllMocks();
  });
  const fleet = (n: number, hub: MemoryHealthHub, clock: FakeClock, extra: object = {}) => {
    replicas = Array.from({ length: n }, (_, i) =>
      createResilience({
        clock,
        healthStore: hub.connect(),
        fleetReplicaId: `r${i}`,
        maxAttempts: 1,
        breakerConsecutiveFailures: 3,
        breakerBreakMs: 1_000,
        breakerMaxBreakMs: 1_000,
        breakerJitter: 0,
        breakerWait: false,
        adaptiveBackoff: false,
        ...extra,
      }),
    );
    return replicas;
  };

  it('one replica trips: the others fail fast without sending, then the fleet sends one probe', async () => {
    const clock = createFakeClock(1_000_000);
    const hub = createMemoryHealthStore({ clock });
    const [a, b, c] = fleet(3, hub, clock);
    const sent = { a: 0, b: 0, c: 0 };
    // b and c know the endpoint before the outage (their first read is done)
    await b!.execute(() => 'ok', { endpoint: 'e' });
    await c!.execute(() => 'ok', { endpoint: 'e' });
    for (let i = 0; i < 3; i++) {
      await expect(a!.execute(counted(sent, 'a', down), { endpoint: 'e' })).rejects.toThrow();
    }
    await settle(clock);
    expect(a!.breakers()[0]!.state).toBe('open');
    expect(b!.breakers()[0]).toMatchObject({ state: 'open', fleet: true });
    await expect(b!.execute(counted(sent, 'b', down), { endpoint: 'e' })).rejects.toMatchObject({
      reason: 'circuit_open',
      classification: { source: 'circuit_breaker.fleet' },
    });
    expect(sent).toEqual({ a: 3, b: 0, c: 0 });

    // the break is over: b and c both call, one of them takes the lease and its call is the probe, the other
    // is refused; at the next break, the lease's owner probes again
    await clock.advance(1_000);
    const first = await Promise.allSettled([
      b!.execute(counted(sent, 'b', down), { endpoint: 'e' }),
      c!.execute(counted(sent, 'c', down), { endpoint: 'e' }),
    ]);
    await settle(clock);
    expect(sent.b + sent.c).toBe(1);
    await clock.advance(1_000);
    const again = await Promise.allSettled([
      b!.execute(
        counted(sent, 'b', () => 'ok'),
        { endpoint: 'e' },
      ),
      c!.execute(
        counted(sent, 'c', () => 'ok'),
        { endpoint: 'e' },
      ),
    ]);
    expect(first.every((r) => r.status === 'rejected')).toBe(true);
    expect(again.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(sent.b + sent.c).toBe(2);
  });

  it('failures in a row spread over the replicas open every breaker at the threshold', async () => {
    const clock = createFakeClock(1_000_000);
    const hub = createMemoryHealthStore({ clock });
    const [a, b, c] = fleet(3, hub, clock);
    for (const r of [a, b, c]) await r!.execute(() => 'ok', { endpoint: 'e' });
    const sent = { a: 0, b: 0, c: 0 };
    for (const [r, key] of [
      [a, 'a'],
      [b, 'b'],
    ] as const) {
      await expect(r!.execute(counted(sent, key, down), { endpoint: 'e' })).rejects.toThrow();
      await settle(clock);
      expect(r!.breakers()[0]!.state).toBe('closed'); // one failure each: no replica trips alone
    }
    await expect(c!.execute(counted(sent, 'c', down), { endpoint: 'e' })).rejects.toThrow();
    await settle(clock);
    expect(c!.breakers()[0]).toMatchObject({ state: 'open' });
    for (const r of [a, b]) expect(r!.breakers()[0]).toMatchObject({ state: 'open', fleet: true });
    expect(sent).toEqual({ a: 1, b: 1, c: 1 });
  });

  it("a success anywhere ends the fleet's failure streak", async () => {
    const clock = createFakeClock(1_000_000);
    const hub = createMemoryHealthStore({ clock });
    const [a, b, c] = fleet(3, hub, clock);
    for (const r of [a, b, c]) await r!.execute(() => 'ok', { endpoint: 'e' });
    await expect(a!.execute(down, { endpoint: 'e' })).rejects.toThrow();
    await expect(b!.execute(down, { endpoint: 'e' })).rejects.toThrow();
    await settle(clock);
    await c!.execute(() => 'ok', { endpoint: 'e' }); // c heard that a streak runs: its success resets it
    await settle(clock);
    await expect(a!.execute(down, { endpoint: 'e' })).rejects.toThrow();
    await expect(b!.execute(down, { endpoint: 'e' })).rejects.toThrow();
    await settle(clock);
    for (const r of [a, b, c]) expect(r!.breakers()[0]!.state).toBe('closed');
    // failures further apart than the streak's TTL are no streak either
    await clock.advance(STREAK_TTL_MS);
    await expect(c!.execute(down, { endpoint: 'e' })).rejects.toThrow();
    await settle(clock);
    for (const r of [a, b, c]) expect(r!.breakers()[0]!.state).toBe('closed');
  });

  it("the fleet's breaks are two thirds of one replica's while the store answers, and a replica's own without it", async () => {
    const clock = createFakeClock(1_000_000);
    const hub = createMemoryHealthStore({ clock });
    const [a] = fleet(1, hub, clock, { breakerBreakMs: 900, breakerMaxBreakMs: 900 });
    for (let i = 0; i < 3; i++) await expect(a!.execute(down, { endpoint: 'e' })).rejects.toThrow();
    const opened = clock.now();
    expect(a!.breakers()[0]!.openUntil).toBe(opened + 900 * FLEET_BREAK_SHARE);
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    hub.setReachable(false);
    await settle(clock);
    await clock.advance(900);
    await expect(a!.execute(down, { endpoint: 'e' })).rejects.toThrow(); // the probe, local: it fails
    // its own break again: the doubled one, capped at breakerMaxBreakMs, not two thirds of it
    expect(a!.breakers()[0]).toMatchObject({ state: 'open', openUntil: clock.now() + 900 });
  });

  it('a probe that succeeds closes every replica', async () => {
    const clock = createFakeClock(1_000_000);
    const hub = createMemoryHealthStore({ clock });
    const [a, b] = fleet(2, hub, clock);
    await b!.execute(() => 'ok', { endpoint: 'e' });
    for (let i = 0; i < 3; i++) await expect(a!.execute(down, { endpoint: 'e' })).rejects.toThrow();
    await settle(clock);
    await clock.advance(1_000);
    await a!.execute(() => 'ok', { endpoint: 'e' }).catch(() => {});
    await settle(clock);
    await expect(a!.execute(() => 'ok', { endpoint: 'e' })).resolves.toBe('ok');
    await settle(clock);
    expect(b!.breakers()[0]).toMatchObject({ state: 'closed' });
  });

  it('a Retry-After seen by one replica holds the others', async () => {
    const clock = createFakeClock(1_000_000);
    const hub = createMemoryHealthStore({ clock });
    const [a, b] = fleet(2, hub, clock, { maxAttempts: 2, timeoutMs: 1_000 });
    await b!.execute(() => 'ok', { endpoint: 'e' });
    const limited = Object.assign(new Error('429'), {
      code: 429,
      status: 429,
      headers: { 'retry-after': '30' },
    });
    const rateLimited = () => {
      throw limited;
    };
    await expect(a!.execute(rateLimited, { endpoint: 'e' })).rejects.toThrow();
    await settle(clock);
    let sent = 0;
    await expect(
      b!.execute(
        () => {
          sent++;
          return 'ok';
        },
        { endpoint: 'e' },
      ),
    ).rejects.toMatchObject({
      reason: 'deadline',
    });
    expect(sent).toBe(0);
  });

  it('a replica started during the outage sends nothing but the fleet probe', async () => {
    const clock = createFakeClock(1_000_000);
    const hub = createMemoryHealthStore({ clock });
    const [a] = fleet(1, hub, clock);
    for (let i = 0; i < 3; i++) await expect(a!.execute(down, { endpoint: 'e' })).rejects.toThrow();
    await settle(clock);
    const late = createResilience({ clock, healthStore: hub.connect(), breakerWait: false, maxAttempts: 1 });
    replicas.push(late);
    let sent = 0;
    const call = late
      .execute(
        () => {
          sent++;
          return 'ok';
        },
        { endpoint: 'e' },
      )
      .catch((e: unknown) => e);
    await settle(clock);
    expect(await call).toMatchObject({ reason: 'circuit_open' });
    expect(sent).toBe(0);
  });

  it('the store down: calls go on with local health, one warning and an event', async () => {
    const clock = createFakeClock(1_000_000);
    const hub = createMemoryHealthStore({ clock });
    const recorder = createMemoryRecorder();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const [a] = fleet(1, hub, clock, { recorder });
    await a!.execute(() => 'ok', { endpoint: 'e' });
    hub.setReachable(false);
    for (let i = 0; i < 3; i++) await expect(a!.execute(down, { endpoint: 'e' })).rejects.toThrow();
    await settle(clock);
    await clock.advance(1_000);
    await expect(a!.execute(() => 'ok', { endpoint: 'e' })).resolves.toBe('ok');
    await clock.advance(5_000);
    expect(warn).toHaveBeenCalledTimes(1);
    const kinds = recorder.events.filter((e) => e.type === 'health_store').map((e) => e.kind);
    expect(kinds).toEqual(['reachable', 'unreachable']);
    hub.setReachable(true);
    await clock.advance(1_000);
    await settle(clock);
    expect(recorder.events.filter((e) => e.type === 'health_store').map((e) => e.kind)).toContain(
      'reachable',
    );
  });

  it('garbage in the store is ignored with one warning', async () => {
    const clock = createFakeClock(1_000_000);
    const hub = createMemoryHealthStore({ clock });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    hub.corrupt('e', 'verdict', '{"v":99,"state":"open"}');
    const [a] = fleet(1, hub, clock);
    await expect(a!.execute(() => 'ok', { endpoint: 'e' })).resolves.toBe('ok');
    hub.publishRaw('not json');
    await clock.advance(3_000);
    await settle(clock);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(/cannot read.*encoding version 99/);
  });

  it('keeps every piece under a TTL', async () => {
    const clock = createFakeClock(1_000_000);
    const hub = createMemoryHealthStore({ clock, ttlMs: 60_000 });
    const [a] = fleet(1, hub, clock);
    for (let i = 0; i < 3; i++) await expect(a!.execute(down, { endpoint: 'e' })).rejects.toThrow();
    await settle(clock);
    expect(hub.size()).toBe(1);
    await a!.close();
    await clock.advance(61_000);
    expect(hub.size()).toBe(0);
  });
});
