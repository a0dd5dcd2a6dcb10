import { type Clock, realClock } from '../../Clock.js';
import { checkOptions, hasMethods, number } from '../../checkOptions.js';
import { type HealthStore, type HealthUpdate, MAX_SHARED_OUTAGES, type StoreMessage } from './HealthStore.js';
import {
  decodeHealth,
  decodeMessage,
  encodeMessage,
  encodeNumber,
  encodeOutage,
  encodeVerdict,
} from './healthCodec.js';

export interface MemoryHealthStoreOptions {
  /** Time (TTLs, leases, delivery delay). */
  readonly clock?: Clock;
  /** Delay of every operation and of every message to the other replicas (the store's round trip). */
  readonly latencyMs?: number;
  /** TTL of every stored piece, refreshed on write. */
  readonly ttlMs?: number;
}

export const memoryHealthStoreDefaults = { clock: realClock, latencyMs: 0, ttlMs: 3_600_000 } as const;

/** A shared in-memory store: every `connect()` is one replica's `HealthStore` on the same data. */
export interface MemoryHealthHub {
  connect(): HealthStore;
  /** Makes every operation fail (and tells the subscribers) until set back: the store is down. */
  setReachable(reachable: boolean): void;
  /** Forgets everything (a store restarted empty). */
  flush(): void;
  /** Stores raw text in a field (`verdict`, `outage`, `hold`), for tests of unreadable data. */
  corrupt(endpoint: string, field: 'verdict' | 'outage' | 'hold', text: string): void;
  /** Publishes raw text to every replica, for tests of unreadable messages. */
  publishRaw(text: string): void;
  /** Keys stored now (expired ones dropped): for checks that nothing grows without bound. */
  size(): number;
}

interface Entry {
  fields: { verdict?: string; outage?: string; hold?: string; outages: string[] };
  probe?: { owner: string; until: number };
  /** The fleet's failures in a row, until when they count. */
  streak?: { count: number; until: number };
  expiresAt: number;
}

const checks = { clock: hasMethods('now', 'sleep', 'random'), latencyMs: number(0), ttlMs: number(1) };

/**
 * The in-memory implementation of the `HealthStore` port, shared by the replicas of one process: the same
 * encoding, TTLs, atomic probe lease and announcements as the Redis store, on an injected clock, so that a
 * fleet can be simulated in virtual time and the fleet logic tested without a server.
 */
export function createMemoryHealthStore(options: MemoryHealthStoreOptions = {}): MemoryHealthHub {
  checkOptions('createMemoryHealthStore', options, checks);
  const { clock, latencyMs, ttlMs } = { ...memoryHealthStoreDefaults, ...options };
  const data = new Map<string, Entry>();
  const listeners = new Set<(message: StoreMessage) => void>();
  let reachable = true;

  const delay = async () => {
    if (latencyMs > 0) await clock.sleep(latencyMs, undefined, { unref: true });
    if (!reachable) throw new Error('memory health store: unreachable');
  };
  const entry = (endpoint: string): Entry => {
    const now = clock.now();
    let e = data.get(endpoint);
    if (!e || e.expiresAt <= now) {
      e = { fields: { outages: [] }, expiresAt: now + ttlMs };
      data.set(endpoint, e);
    }
    e.expiresAt = now + ttlMs;
    return e;
  };
  const live = (endpoint: string): Entry | undefined => {
    const e = data.get(endpoint);
    if (e && e.expiresAt <= clock.now()) data.delete(endpoint);
    return data.get(endpoint);
  };
  const deliver = (text: string, except?: (message: StoreMessage) => void) => {
    for (const listener of [...listeners]) {
      if (listener === except) continue;
      const send = () => listener(decodeMessage(text));
      if (latencyMs > 0) clock.sleep(latencyMs, undefined, { unref: true }).then(send, () => {});
      else queueMicrotask(send);
    }
  };

  function connect(): HealthStore {
    let mine: ((message: StoreMessage) => void) | undefined;
    return {
      async read(endpoint) {
        await delay();
        const e = live(endpoint);
        if (!e) return { kind: 'empty' };
        const probe = e.probe && e.probe.until > clock.now() ? e.probe : undefined;
        return decodeHealth(e.fields, probe);
      },
      async write(endpoint, update, from) {
        await delay();
        apply(entry(endpoint), update);
        deliver(encodeMessage(endpoint, from, update), mine);
      },
      async acquireProbe(endpoint, owner, leaseMs) {
        await delay();
        const e = entry(endpoint);
        const now = clock.now();
        if (!e.probe || e.probe.until <= now || e.probe.owner === owner) {
          e.probe = { owner, until: now + leaseMs };
          return { owned: true, until: e.probe.until };
        }
        return { owned: false, owner: e.probe.owner, until: e.probe.until };
      },
      async releaseProbe(endpoint, owner) {
        await delay();
        const e = live(endpoint);
        if (e?.probe?.owner === owner) e.probe = undefined;
      },
      async failureStreak(endpoint, failed, streakTtlMs) {
        await delay();
        const now = clock.now();
        if (!failed) {
          const e = live(endpoint);
          if (e) e.streak = undefined;
          return 0;
        }
        const e = entry(endpoint);
        const count = e.streak && e.streak.until > now ? e.streak.count + 1 : 1;
        e.streak = { count, until: now + streakTtlMs };
        return count;
      },
      subscribe(listener) {
        mine = listener;
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      async close() {
        if (mine) listeners.delete(mine);
      },
    };
  }

  return {
    connect,
    setReachable(value) {
      if (value === reachable) return;
      reachable = value;
      for (const listener of [...listeners])
        queueMicrotask(() => listener({ kind: 'reachability', reachable: value }));
    },
    flush: () => data.clear(),
    corrupt(endpoint, field, text) {
      entry(endpoint).fields[field] = text;
    },
    publishRaw: (text) => deliver(text),
    size() {
      for (const key of [...data.keys()]) live(key);
      return data.size;
    },
  };
}

/** Applies one update to an endpoint's stored fields (the same semantics as the Redis store's). */
function apply(e: Entry, update: HealthUpdate): void {
  const f = e.fields;
  switch (update.kind) {
    case 'verdict':
      f.verdict = encodeVerdict(update.verdict);
      return;
    case 'outage_started':
      f.outage ??= encodeNumber('start', update.start);
      return;
    case 'outage_ended':
      f.outage = undefined;
      f.outages.push(encodeOutage(update.lengthMs));
      if (f.outages.length > MAX_SHARED_OUTAGES) f.outages.splice(0, f.outages.length - MAX_SHARED_OUTAGES);
      return;
    case 'hold':
      f.hold = encodeNumber('until', update.until);
      return;
    case 'failing':
      return; // announced only
  }
}
