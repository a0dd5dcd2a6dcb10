import { createClient, type RedisClientType } from 'redis';
import { checkOptions, hasMethods, integer } from '../checkOptions.js';
import {
  type HealthStore,
  type HealthUpdate,
  MAX_SHARED_OUTAGES,
  type StoreMessage,
} from '../health/store/HealthStore.js';
import {
  decodeHealth,
  decodeMessage,
  encodeMessage,
  encodeNumber,
  encodeOutage,
  encodeVerdict,
} from '../health/store/healthCodec.js';

/** The Redis store: the `HealthStore` port, and when it is connected. */
export interface RedisHealthStore extends HealthStore {
  /**
   * Resolves when both connections are up and the announcements are subscribed (never rejects: a store that
   * cannot connect keeps trying in the background, and the replicas go on with local health meanwhile).
   */
  readonly ready: Promise<void>;
  failureStreak(endpoint: string, failed: boolean, ttlMs: number): Promise<number>;
}

/** A node-redis client (`redis` 5.x or 6.x), as `createClient` returns it, with any modules, scripts and RESP. */
// biome-ignore lint/suspicious/noExplicitAny: any client configuration is accepted
export type RedisClient = RedisClientType<any, any, any, any, any>;

export interface RedisHealthStoreOptions {
  /** `redis://host:port` (or `rediss://`, `valkey://`-compatible servers). Ignored when `client` is given. */
  readonly url?: string;
  /** A client of your own (connected or not); the store duplicates it for pub/sub and never closes it. */
  readonly client?: RedisClient;
  /** Prefix of every key and of the channel. */
  readonly keyPrefix?: string;
  /** TTL of every key, refreshed on write: the history of an endpoint nobody writes about is forgotten then. */
  readonly ttlMs?: number;
  /** Time limit of every operation: beyond, it fails (the caller falls back to local health). */
  readonly operationTimeoutMs?: number;
  /** Time limit of a connection attempt. */
  readonly connectTimeoutMs?: number;
  /** First and longest delay between reconnection attempts (exponential with jitter in between). */
  readonly reconnectBaseMs?: number;
  readonly reconnectMaxMs?: number;
  /** Commands queued at most while the server is slow; beyond, an operation fails at once. */
  readonly maxQueuedCommands?: number;
}

export const redisHealthStoreDefaults = {
  url: 'redis://127.0.0.1:6379',
  keyPrefix: 'mcp-resilience:',
  ttlMs: 86_400_000,
  operationTimeoutMs: 250,
  connectTimeoutMs: 2_000,
  reconnectBaseMs: 100,
  reconnectMaxMs: 10_000,
  maxQueuedCommands: 1_000,
} as const;

const checks = {
  url: (v: unknown) =>
    typeof v === 'string' && /^(redis|rediss|valkey|valkeys):\/\//.test(v)
      ? undefined
      : 'a redis:// or rediss:// URL',
  client: hasMethods('duplicate', 'hGetAll', 'publish'),
  keyPrefix: (v: unknown) =>
    typeof v === 'string' && v.length <= 128 ? undefined : 'a string of at most 128 characters',
  ttlMs: integer(1_000),
  operationTimeoutMs: integer(1),
  connectTimeoutMs: integer(1),
  reconnectBaseMs: integer(1),
  reconnectMaxMs: integer(1),
  maxQueuedCommands: integer(1),
};

/** Takes the lease when free or already ours; answers [1, ttl] or [0, owner, ttl]. */
const ACQUIRE = `local o = redis.call('GET', KEYS[1])
if (not o) or o == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return {1, ARGV[1], tonumber(ARGV[2])}
end
return {0, o, redis.call('PTTL', KEYS[1])}`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
/** One more failure in a row: the count, its TTL refreshed. */
const FAILED = `local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return n`;

/**
 * The `HealthStore` port on Redis or Valkey (node-redis). Per endpoint: a hash (`verdict`, `outage`, `hold`),
 * a list of past outage lengths (the newest 20), a probe lease key (`SET`-like, atomic by a Lua script) and a
 * counter of the fleet's failures in a row (`INCR` with a short TTL, by a Lua script),
 * all under one hash tag (Redis Cluster keeps them on one slot), every key with a TTL. Updates are announced on
 * one channel (pub/sub, a second connection). Every operation is bounded by `operationTimeoutMs`; commands
 * fail at once while disconnected (no offline queue); the client reconnects with exponential backoff and
 * jitter, and says so through `reachability` messages.
 */
export function createRedisHealthStore(options: RedisHealthStoreOptions = {}): RedisHealthStore {
  checkOptions('createRedisHealthStore', options, checks);
  const o = { ...redisHealthStoreDefaults, ...definedOnly(options) };
  const socket = {
    connectTimeout: o.connectTimeoutMs,
    reconnectStrategy: (retries: number) =>
      Math.min(o.reconnectMaxMs, o.reconnectBaseMs * 2 ** Math.min(retries, 20)) * (0.5 + Math.random() / 2),
  };
  const owned = options.client === undefined;
  const client: RedisClient =
    options.client ??
    createClient({
      url: o.url,
      socket,
      disableOfflineQueue: true,
      commandsQueueMaxLength: o.maxQueuedCommands,
    });
  const subscriber = client.duplicate({ socket, disableOfflineQueue: true });
  const channel = `${o.keyPrefix}updates`;
  const listeners = new Set<(message: StoreMessage) => void>();
  const tell = (message: StoreMessage) => {
    for (const listener of [...listeners]) listener(message);
  };
  watchReachability(client, tell);
  let everReady = client.isReady;
  const firstReady = client.isReady
    ? Promise.resolve()
    : new Promise<void>((resolve) => client.once('ready', () => resolve()));
  void firstReady.then(() => {
    everReady = true;
  });
  subscriber.on('error', () => {}); // the command client reports reachability
  if (owned) {
    void client.connect().then(
      () => client.unref(),
      () => {}, // it keeps reconnecting; reachability is reported by its events
    );
  }
  // node-redis subscribes again by itself after every reconnection
  const subscribed = subscriber
    .connect()
    .then(() => subscriber.unref())
    .then(() => subscriber.subscribe(channel, (text: string) => tell(decodeMessage(text))))
    .catch(() => {});
  const keys = (endpoint: string) => {
    const tag = `${o.keyPrefix}{${encodeURIComponent(endpoint)}}`;
    return {
      health: `${tag}:health`,
      outages: `${tag}:outages`,
      probe: `${tag}:probe`,
      streak: `${tag}:streak`,
    };
  };
  const bounded = <T>(what: string, run: () => Promise<T>): Promise<T> =>
    withTimeout(what, o.operationTimeoutMs, async () => {
      // still connecting for the first time: wait for it within the time limit; afterwards fail at once
      if (!client.isReady && !everReady) await firstReady;
      if (!client.isReady) throw new Error(`redis health store: not connected (${what})`);
      return run();
    });

  const ready = Promise.all([firstReady, subscribed]).then(() => {});
  return {
    ready,
    read: (endpoint) =>
      bounded('read', async () => {
        const k = keys(endpoint);
        const [fields, outages, owner, ttl] = (await client
          .multi()
          .hGetAll(k.health)
          .lRange(k.outages, -MAX_SHARED_OUTAGES, -1)
          .get(k.probe)
          .pTTL(k.probe)
          .exec()) as unknown as [Record<string, string>, string[], string | null, number];
        const probe = typeof owner === 'string' && ttl > 0 ? { owner, until: Date.now() + ttl } : undefined;
        return decodeHealth({ ...pick(fields), outages: outages ?? [] }, probe);
      }),
    write: (endpoint, update, from) =>
      bounded('write', async () => {
        const k = keys(endpoint);
        const multi = client.multi();
        stage(multi, k, update, o.ttlMs);
        multi.publish(channel, encodeMessage(endpoint, from, update));
        await multi.exec();
      }),
    acquireProbe: (endpoint, owner, leaseMs) =>
      bounded('acquireProbe', async () => {
        const reply = (await client.eval(ACQUIRE, {
          keys: [keys(endpoint).probe],
          arguments: [owner, String(Math.max(1, Math.round(leaseMs)))],
        })) as [number, string, number];
        const until = Date.now() + Math.max(0, Number(reply[2]));
        return reply[0] === 1 ? { owned: true, until } : { owned: false, owner: String(reply[1]), until };
      }),
    releaseProbe: (endpoint, owner) =>
      bounded('releaseProbe', async () => {
        await client.eval(RELEASE, { keys: [keys(endpoint).probe], arguments: [owner] });
      }),
    failureStreak: (endpoint, failed, ttlMs) =>
      bounded('failureStreak', async () => {
        const key = keys(endpoint).streak;
        if (!failed) {
          await client.del(key);
          return 0;
        }
        const ttl = String(Math.max(1, Math.round(ttlMs)));
        return Number(await client.eval(FAILED, { keys: [key], arguments: [ttl] }));
      }),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      await Promise.allSettled([quit(subscriber), owned ? quit(client) : Promise.resolve()]);
    },
  };
}

type Multi = ReturnType<RedisClient['multi']>;

/** Queues the commands of one update (the same semantics as the in-memory store's). */
function stage(
  multi: Multi,
  k: { health: string; outages: string },
  update: HealthUpdate,
  ttlMs: number,
): void {
  switch (update.kind) {
    case 'verdict':
      multi.hSet(k.health, 'verdict', encodeVerdict(update.verdict));
      break;
    case 'outage_started':
      multi.hSetNX(k.health, 'outage', encodeNumber('start', update.start));
      break;
    case 'outage_ended':
      multi.hDel(k.health, 'outage');
      multi.rPush(k.outages, encodeOutage(update.lengthMs));
      multi.lTrim(k.outages, -MAX_SHARED_OUTAGES, -1);
      multi.pExpire(k.outages, ttlMs);
      break;
    case 'hold':
      multi.hSet(k.health, 'hold', encodeNumber('until', update.until));
      break;
    case 'failing':
      return; // announced only
  }
  multi.pExpire(k.health, ttlMs);
}

/** Tracks whether the command connection is usable and tells the listeners when that changes. */
function watchReachability(client: RedisClient, tell: (message: StoreMessage) => void) {
  let reachable = true; // until it fails (still connecting for the first time is not a failure)
  const set = (value: boolean, problem?: string) => {
    if (value === reachable) return;
    reachable = value;
    tell({ kind: 'reachability', reachable: value, ...(problem ? { problem } : {}) });
  };
  client.on('ready', () => set(true));
  client.on('error', (error: unknown) => set(false, error instanceof Error ? error.message : String(error)));
  client.on('end', () => set(false, 'connection closed'));
  client.on('reconnecting', () => set(false, 'reconnecting'));
}

/** Runs `run` with a time limit: rejects with an error naming the operation when it takes longer. */
function withTimeout<T>(what: string, ms: number, run: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis health store: ${what} took over ${ms} ms`)), ms);
    timer.unref?.();
    Promise.resolve()
      .then(run)
      .then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
  });
}

const pick = (f: Record<string, string> | null | undefined) => ({
  ...(typeof f?.verdict === 'string' ? { verdict: f.verdict } : {}),
  ...(typeof f?.outage === 'string' ? { outage: f.outage } : {}),
  ...(typeof f?.hold === 'string' ? { hold: f.hold } : {}),
});

/** Closes a connected client; stops one still (re)connecting at once (a store that never came up must not hang). */
async function quit(c: RedisClient): Promise<void> {
  if (c.isReady) await c.close();
  else if (c.isOpen) c.destroy();
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}
