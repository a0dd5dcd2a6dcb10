import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createResilience } from '../../src/createResilience.js';
import type { HealthStore, StoreMessage } from '../../src/health/store/HealthStore.js';
import { createRedisHealthStore } from '../../src/redis/index.js';
import { type RedisServer, startRedis } from './redisServer.js';

const down = () => {
  throw Object.assign(new Error('HTTP 503'), { status: 503, code: 503 });
};

/** The Redis store on its own, in this process, against a real redis-server. */
describe('createRedisHealthStore', { timeout: 30_000 }, () => {
  let redis: RedisServer;
  let admin: ReturnType<typeof createClient>;
  let n = 0;
  beforeAll(async () => {
    redis = await startRedis();
    admin = createClient({ url: redis.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.close();
    await redis?.kill();
  });
  // Operations' limit: long enough that a loaded machine does not cross it (the pause test sets its own).
  const LIMIT = { operationTimeoutMs: 5_000 };
  const store = (extra: object = {}) => {
    const keyPrefix = `unit${++n}:`;
    return { keyPrefix, store: createRedisHealthStore({ url: redis.url, keyPrefix, ...LIMIT, ...extra }) };
  };
  const next = (s: HealthStore, which: (m: StoreMessage) => boolean) =>
    new Promise<StoreMessage>((resolve) => {
      const stop = s.subscribe((m) => {
        if (!which(m)) return;
        stop();
        resolve(m);
      });
    });

  it('names the bad option', () => {
    expect(() => createRedisHealthStore({ url: 'http://x' })).toThrow(/'url'.*redis:\/\//);
    expect(() => createRedisHealthStore({ ttlMs: 5 })).toThrow(/'ttlMs'/);
  });

  it('stores each piece under a TTL, announces it, and gives the probe lease to one owner at a time', async () => {
    const { keyPrefix, store: s } = store({ ttlMs: 60_000 });
    const other = createRedisHealthStore({ url: redis.url, keyPrefix, ...LIMIT });
    await Promise.all([s.ready, other.ready]);
    const heard = next(other, (m) => m.kind === 'update' && m.update.kind === 'verdict');
    const verdict = { state: 'open' as const, since: 1, until: 2, by: 'me' };
    await s.write('svc', { kind: 'verdict', verdict }, 'me');
    await s.write('svc', { kind: 'outage_started', start: 1 }, 'me');
    await s.write('svc', { kind: 'outage_ended', start: 1, lengthMs: 500 }, 'me');
    await s.write('svc', { kind: 'hold', until: 9 }, 'me');
    expect(await heard).toMatchObject({ kind: 'update', endpoint: 'svc', from: 'me', update: { verdict } });
    expect(await s.acquireProbe('svc', 'me', 5_000)).toMatchObject({ owned: true });
    expect(await other.acquireProbe('svc', 'you', 5_000)).toMatchObject({ owned: false, owner: 'me' });
    expect(await other.read('svc')).toMatchObject({
      kind: 'health',
      health: { verdict, outages: [500], holdUntil: 9, probe: { owner: 'me' } },
    });
    const keys = await admin.keys(`${keyPrefix}*`);
    expect(keys.length).toBe(3);
    for (const key of keys) expect(await admin.pTTL(key)).toBeGreaterThan(0);
    await s.releaseProbe('svc', 'me');
    expect(await other.acquireProbe('svc', 'you', 5_000)).toMatchObject({ owned: true });
    await Promise.all([s.close(), other.close()]);
  });

  it("counts the fleet's failures in a row under a TTL, and a success resets them", async () => {
    const { keyPrefix, store: s } = store();
    const other = createRedisHealthStore({ url: redis.url, keyPrefix, ...LIMIT });
    await Promise.all([s.ready, other.ready]);
    expect(await s.failureStreak('svc', true, 5_000)).toBe(1);
    expect(await other.failureStreak('svc', true, 5_000)).toBe(2);
    const ttl = await admin.pTTL(`${keyPrefix}{svc}:streak`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
    expect(await other.failureStreak('svc', false, 5_000)).toBe(0);
    expect(await s.failureStreak('svc', true, 5_000)).toBe(1);
    const heard = next(other, (m) => m.kind === 'update' && m.update.kind === 'failing');
    await s.write('svc', { kind: 'failing' }, 'me');
    expect(await heard).toMatchObject({ endpoint: 'svc', from: 'me', update: { kind: 'failing' } });
    expect(await admin.exists(`${keyPrefix}{svc}:health`)).toBe(0); // announced, not stored
    await Promise.all([s.close(), other.close()]);
  });

  it('reads another version or garbage as unreadable, and a replica ignores it with one warning', async () => {
    const { keyPrefix, store: s } = store();
    await admin.hSet(`${keyPrefix}{svc}:health`, 'verdict', '{"v":2,"state":"open"}');
    expect(await s.read('svc')).toMatchObject({
      kind: 'unreadable',
      problem: expect.stringMatching(/version 2/),
    });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    await s.ready;
    const r = createResilience({ healthStore: s, maxAttempts: 1 });
    await expect(r.execute(() => 'ok', { endpoint: 'svc' })).resolves.toBe('ok');
    const seen = next(s, (m) => m.kind === 'unreadable');
    await admin.publish(`${keyPrefix}updates`, 'garbage');
    await seen;
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/cannot read/);
    warn.mockRestore();
    await r.close();
  });

  it('republishes its open verdict when the store lost it (restarted empty)', async () => {
    const { keyPrefix, store: s } = store();
    const r = createResilience({
      healthStore: s,
      maxAttempts: 1,
      breakerConsecutiveFailures: 2,
      breakerBreakMs: 60_000,
      breakerMaxBreakMs: 60_000,
      breakerWait: false,
      fleetSyncIntervalMs: 50,
    });
    for (let i = 0; i < 2; i++) await r.execute(down, { endpoint: 'svc' }).catch(() => {});
    const key = `${keyPrefix}{svc}:health`;
    const stored = async () => (await admin.hGet(key, 'verdict')) ?? '';
    await vi.waitFor(async () => expect(await stored()).toMatch(/"open"/), { timeout: 5_000, interval: 20 });
    const listener = admin.duplicate();
    await listener.connect();
    const again = new Promise<string>((resolve) => {
      void listener.subscribe(`${keyPrefix}updates`, (text) => {
        if (text.includes('"verdict"')) resolve(text);
      });
    });
    await vi.waitFor(async () =>
      expect(await admin.pubSubNumSub(`${keyPrefix}updates`)).toMatchObject({ [`${keyPrefix}updates`]: 2 }),
    );
    await admin.del(key);
    expect(JSON.parse(await again)).toMatchObject({ update: { verdict: { state: 'open' } } });
    expect(await stored()).toMatch(/"open"/);
    await listener.close();
    await r.close();
  });

  it('fails each operation within its time limit while Redis is paused, and answers again after', async () => {
    const { store: s } = store({ operationTimeoutMs: 100 });
    // The first read also connects: on a loaded machine it may take over 100 ms, so it is retried until it answers.
    await vi.waitFor(async () => expect(await s.read('svc')).toMatchObject({ kind: 'empty' }), {
      timeout: 10_000,
      interval: 20,
    });
    redis.pause();
    try {
      const started = performance.now();
      await expect(s.read('svc')).rejects.toThrow(/took over 100 ms/);
      expect(performance.now() - started).toBeLessThan(1_000);
    } finally {
      redis.resume();
    }
    await vi.waitFor(async () => expect(await s.read('svc')).toMatchObject({ kind: 'empty' }), {
      timeout: 5_000,
    });
    await s.close();
  });

  it('takes a client of its own ({ client }) and leaves it open on close', async () => {
    const client = createClient({ url: redis.url });
    await client.connect();
    const s = createRedisHealthStore({ client, keyPrefix: `own${++n}:` });
    expect(await s.read('svc')).toEqual({ kind: 'empty' });
    await s.close();
    expect(client.isOpen).toBe(true);
    await client.close();
  });
});

describe('the redis-server the tests start', () => {
  it('fails with a clear message when the binary is absent', async () => {
    const { redisServerBinary } = await import('./redisServer.js');
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      expect(() => redisServerBinary()).toThrow(
        /redis-server is not installed.*apt-get install -y redis-server/,
      );
    } finally {
      process.env.PATH = path;
    }
  });
});
