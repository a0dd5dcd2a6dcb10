import type { Clock } from '../../Clock.js';
import type { BreakerState } from '../../decide/BreakerState.js';
import type { FleetDecision, ResilienceEvent } from '../../record/ResilienceEvent.js';
import type { Transition } from '../CircuitBreaker.js';
import type { Endpoint } from '../Endpoint.js';
import type {
  FleetVerdict,
  HealthStore,
  HealthUpdate,
  SharedHealth,
  StoreMessage,
} from '../store/HealthStore.js';

export interface FleetSyncOptions {
  /** This replica's id in the store (unique per process). */
  readonly replicaId: string;
  /** Period of the catch-up read of the tracked endpoints (pub/sub carries the news in between). */
  readonly syncIntervalMs: number;
  /** How long a probe lease lasts if its owner never gives it back (it died). */
  readonly probeLeaseMs: number;
  /** Tracked endpoints read per catch-up round at most (the most recently used). */
  readonly maxReadsPerRound: number;
  /** Unhealthy failures in a row, fleet-wide, that open a breaker (`breakerConsecutiveFailures`). */
  readonly failureThreshold: number;
}

/** This replica's view of an endpoint's probe lease. */
type Lease =
  | { readonly state: 'none' }
  /** `answer`: settles when the store answered (or failed). */
  | { readonly state: 'acquiring'; readonly answer: Promise<void> }
  | { readonly state: 'mine' | 'theirs'; readonly until: number };

/** A store that keeps failing and recovering is reported once per this interval (each time as an event). */
const WARN_EVERY_MS = 300_000;
/**
 * The share of one replica's break between the fleet's probes: the fleet probes 1.5 times as often as a replica
 * alone (its requests into a down endpoint stay within 2× a lone replica's, and the probe that finds the recovery
 * comes a third sooner, for every caller of the fleet).
 */
export const FLEET_BREAK_SHARE = 2 / 3;
/** The fleet's failures in a row are forgotten this long after the last one (failures further apart are no streak). */
export const STREAK_TTL_MS = 10_000;

const NONE: Lease = { state: 'none' };

/**
 * Shares this replica's endpoint health through a `HealthStore` and adopts the fleet's, never on the call
 * path: decisions read the local breakers; local verdicts, outage starts and ends and `Retry-After` holds go out
 * asynchronously; other replicas' arrive by the store's announcements (pub/sub) and a periodic catch-up read.
 * An open breaker half-opens only for the replica that takes the fleet's probe lease (one probe fleet-wide per
 * interval); the others stay open until that probe's verdict, or until the lease expires. Whenever the store
 * fails (down, slow, garbage), the replica goes on with its local health: one warning, a `health_store` event,
 * and every guard answers as if there were no fleet, until the store answers again and the replica catches up.
 */
export class FleetSync {
  private reachable = true;
  /** The store answered at least once (the first answer is reported, so the reachability gauge reads 1). */
  private known = false;
  /** When the last fallback warning was printed (one per `WARN_EVERY_MS` at most). */
  private warnedAt: number | undefined;
  private readonly leases = new WeakMap<Endpoint, Lease>();
  /** The time of the newest fleet verdict applied per endpoint. */
  private readonly seen = new WeakMap<Endpoint, FleetVerdict>();
  /** Until when the fleet's failure streak of an endpoint may run (a success here then resets it). */
  private readonly failing = new WeakMap<Endpoint, number>();
  private readonly loop = new AbortController();
  private readonly unsubscribe: () => void;
  private closed = false;

  constructor(
    private readonly store: HealthStore,
    private readonly options: FleetSyncOptions,
    private readonly clock: Clock,
    /** The tracked endpoints, most recently used last; `find` does not create one. */
    private readonly endpoints: { all(): Iterable<Endpoint>; find(key: string): Endpoint | undefined },
    private readonly emit: ((event: ResilienceEvent) => void) | undefined,
  ) {
    this.unsubscribe = store.subscribe((m) => this.onMessage(m));
    void this.runLoop();
  }

  /** A new endpoint: guard its probes, share its holds, and read what the fleet knows of it. */
  attach(endpoint: Endpoint): void {
    endpoint.breaker.probeGuard = (now, timer) => this.guard(endpoint, now, timer);
    endpoint.breaker.breakShare = () => (this.reachable && !this.closed ? FLEET_BREAK_SHARE : 1);
    endpoint.onHold = (until) => this.write(endpoint, { kind: 'hold', until });
    if (this.store.failureStreak) endpoint.onStreak = (failed) => this.streak(endpoint, failed);
    if (!this.reachable) return;
    const read = this.readInto(endpoint, true).finally(() => {
      if (endpoint.fleetRead === read) endpoint.fleetRead = undefined;
    });
    endpoint.fleetRead = read;
  }

  /** A transition of a tracked endpoint: this replica's own verdicts are shared (adopted ones are not echoed). */
  onTransition(endpoint: Endpoint, t: Transition): void {
    if (t.reason.startsWith('fleet_')) return;
    const verdict: FleetVerdict = {
      state: t.to,
      since: t.time,
      ...(t.to === 'open' && endpoint.breaker.openUntil !== undefined
        ? { until: endpoint.breaker.openUntil }
        : {}),
      by: this.options.replicaId,
    };
    this.write(endpoint, { kind: 'verdict', verdict });
    const start = endpoint.outageStart() ?? t.time;
    if (t.to === 'open' && t.from === 'closed') {
      this.write(endpoint, { kind: 'outage_started', start });
      this.resetStreak(endpoint); // the streak did its work: the fleet's next one starts from 0
    }
    if (t.to === 'closed' && t.from === 'half_open') {
      this.write(endpoint, { kind: 'outage_ended', start, lengthMs: Math.max(0, t.time - start) });
    }
    // A failed probe keeps the lease (the owner probes again at its next interval; the others wait for it, or for
    // the lease to expire if it dies): releasing it would let another replica probe at once, a second request
    // into the same interval. A success releases it.
    if (t.from === 'half_open' && t.to === 'closed') {
      this.releaseLease(endpoint);
      this.resetStreak(endpoint);
    }
  }

  /** Stops the catch-up loop and the subscription; pending writes finish on their own. */
  close(): void {
    this.closed = true;
    this.loop.abort();
    this.unsubscribe();
  }

  /** Whether the store answered last time it was asked. */
  get storeReachable(): boolean {
    return this.reachable;
  }

  /**
   * Whether an open breaker whose break is over may half-open now: `true`, `false`, or, while the lease is being
   * taken, the promise of the store's answer (which half-opens the breaker, or extends its break to the other
   * owner's lease): a call that finds the break over waits for it, one round trip, to be the fleet's probe.
   * The timer never waits.
   */
  private guard(endpoint: Endpoint, now: number, timer: boolean): boolean | Promise<void> {
    if (!this.reachable || this.closed) return true;
    const lease = this.leases.get(endpoint) ?? NONE;
    if (lease.state === 'mine' && lease.until > now) return true;
    if (lease.state === 'acquiring') return timer ? false : lease.answer;
    if (lease.state === 'theirs' && lease.until > now) {
      endpoint.breaker.extendOpen(lease.until);
      return false;
    }
    if (timer && endpoint.gate.waiting === 0) return false; // nobody to probe with: the next call asks
    const answer = this.acquire(endpoint);
    return timer ? false : answer;
  }

  /** Asks the store for the endpoint's probe lease; settles when the answer is applied. */
  private acquire(endpoint: Endpoint): Promise<void> {
    const { replicaId, probeLeaseMs } = this.options;
    let acquiring: Lease = NONE;
    const answer = this.store.acquireProbe(endpoint.key, replicaId, probeLeaseMs).then(
      (lease) => {
        if (this.leases.get(endpoint) !== acquiring) return;
        if (lease.owned) {
          this.leases.set(endpoint, { state: 'mine', until: lease.until });
          this.decided(endpoint, 'probe_owned');
          endpoint.breaker.halfOpenNow();
        } else {
          this.leases.set(endpoint, { state: 'theirs', until: lease.until });
          this.decided(endpoint, 'probe_elsewhere');
          endpoint.breaker.extendOpen(lease.until);
        }
      },
      (error: unknown) => {
        this.leases.set(endpoint, NONE);
        this.failed(error);
        endpoint.breaker.halfOpenNow(); // local health: the breaker probes on its own
      },
    );
    acquiring = { state: 'acquiring', answer };
    this.leases.set(endpoint, acquiring);
    return answer;
  }

  /**
   * An attempt's outcome while the breaker is closed. A failure counts fleet-wide (the first of a streak is
   * announced, so that the next success anywhere resets it); when the count reaches the threshold, this
   * replica's breaker opens if its own last attempt failed too, and its verdict goes to the others. A success
   * resets a streak that may be running; otherwise it costs nothing (no store operation).
   */
  private streak(endpoint: Endpoint, failed: boolean): void {
    if (!this.reachable || this.closed) return;
    if (!failed) {
      const until = this.failing.get(endpoint);
      if (until === undefined) return; // no streak heard of: the success path's usual case
      if (until > this.clock.now()) this.resetStreak(endpoint);
      else this.failing.delete(endpoint);
      return;
    }
    this.failing.set(endpoint, this.clock.now() + STREAK_TTL_MS);
    this.store.failureStreak?.(endpoint.key, true, STREAK_TTL_MS).then(
      (count) => {
        this.succeeded();
        if (count === 1) this.write(endpoint, { kind: 'failing' });
        if (count >= this.options.failureThreshold) endpoint.breaker.openOnSharedFailures(this.clock.now());
      },
      (e: unknown) => this.failed(e),
    );
  }

  private resetStreak(endpoint: Endpoint): void {
    this.failing.delete(endpoint);
    this.store.failureStreak?.(endpoint.key, false, STREAK_TTL_MS).catch((e: unknown) => this.failed(e));
  }

  private releaseLease(endpoint: Endpoint): void {
    const lease = this.leases.get(endpoint);
    this.leases.set(endpoint, NONE);
    if (lease?.state !== 'mine') return;
    this.store.releaseProbe(endpoint.key, this.options.replicaId).catch((e: unknown) => this.failed(e));
  }

  private write(endpoint: Endpoint, update: HealthUpdate): void {
    if (this.closed) return;
    this.store.write(endpoint.key, update, this.options.replicaId).then(
      () => this.succeeded(),
      (e: unknown) => this.failed(e),
    );
  }

  /** Reads the fleet's health of `endpoint` and adopts it; republishes this replica's open verdict if the store lost it. */
  private async readInto(endpoint: Endpoint, first: boolean): Promise<void> {
    let result: Awaited<ReturnType<HealthStore['read']>>;
    try {
      result = await this.store.read(endpoint.key);
    } catch (error) {
      this.failed(error);
      return;
    }
    this.succeeded();
    if (result.kind === 'unreadable') {
      this.unreadable(result.problem);
      return;
    }
    const health = result.kind === 'health' ? result.health : undefined;
    if (health) this.adopt(endpoint, health, first);
    const b = endpoint.breaker;
    const stored = health?.verdict;
    if (b.state === 'open' && !b.fleetVerdict && (!stored || stored.state === 'closed')) {
      // restarted empty (or behind): this replica's own open verdict goes out again
      const since = b.snapshot(this.clock.now()).since;
      const until = b.openUntil;
      const by = this.options.replicaId;
      this.write(endpoint, {
        kind: 'verdict',
        verdict: { state: 'open', since, ...(until ? { until } : {}), by },
      });
      this.write(endpoint, { kind: 'outage_started', start: endpoint.outageStart() ?? since });
    }
  }

  private adopt(endpoint: Endpoint, health: SharedHealth, first: boolean): void {
    const now = this.clock.now();
    if (health.holdUntil !== undefined) this.adoptHold(endpoint, health.holdUntil);
    if (first && health.outages.length > 0) endpoint.adopt({ pastOutagesMs: health.outages }, now);
    const v = health.verdict;
    if (v && v.by !== this.options.replicaId) {
      if (v.state !== 'closed' && health.outageStart !== undefined)
        endpoint.adoptOutageStart(health.outageStart);
      const probeUntil = health.probe?.until ?? now + this.options.probeLeaseMs;
      this.adoptVerdict(endpoint, v, probeUntil, health.outageStart);
    }
    if (health.probe && health.probe.owner !== this.options.replicaId && endpoint.breaker.state === 'open') {
      this.leases.set(endpoint, { state: 'theirs', until: health.probe.until });
      endpoint.breaker.extendOpen(health.probe.until);
    }
  }

  /** Another replica's verdict. `probeUntil`: until when a half-open verdict's probe may run. */
  private adoptVerdict(endpoint: Endpoint, v: FleetVerdict, probeUntil: number, outageStart?: number): void {
    const now = this.clock.now();
    const b = endpoint.breaker;
    const seen = this.seen.get(endpoint);
    // applied already (a catch-up read of the same verdict), or older than one applied
    if (seen && (seen.since > v.since || (seen.since === v.since && seen.state === v.state))) return;
    this.seen.set(endpoint, v);
    const lagMs = Math.max(0, now - v.since);
    if (v.state === 'closed') {
      if (b.state === 'closed' || b.snapshot(now).since > v.since) return;
      this.leases.set(endpoint, NONE);
      b.adoptClosed(now);
      if (stateOf(b) === 'closed') this.decided(endpoint, 'adopted_closed', lagMs);
      return;
    }
    // open, or half-open (its owner probes): nothing goes from here before the next probe
    const until = v.state === 'open' ? (v.until ?? now) : probeUntil;
    if (until + this.options.probeLeaseMs <= now) return; // stale: its owner is long gone
    if (this.leases.get(endpoint)?.state === 'theirs') this.leases.set(endpoint, NONE); // their probe ended
    const wasClosed = b.state === 'closed';
    b.adoptFleetOpen(Math.max(until, now), now, Math.min(outageStart ?? v.since, now));
    if (wasClosed && stateOf(b) === 'open') this.decided(endpoint, 'adopted_open', lagMs);
  }

  private adoptHold(endpoint: Endpoint, until: number): void {
    const now = this.clock.now();
    if (until <= now + endpoint.retryAfterMs(now)) return;
    endpoint.adopt({ retryAfterUntil: until }, now);
    this.decided(endpoint, 'adopted_hold');
  }

  private onMessage(m: StoreMessage): void {
    if (this.closed) return;
    if (m.kind === 'unreadable') {
      this.unreadable(m.problem);
      return;
    }
    if (m.kind === 'reachability') {
      if (m.reachable) void this.catchUp();
      else this.failed(new Error(m.problem ?? 'unreachable'));
      return;
    }
    if (m.from === this.options.replicaId) return;
    const endpoint = this.endpoints.find(m.endpoint);
    if (!endpoint) return;
    const u = m.update;
    if (u.kind === 'verdict')
      this.adoptVerdict(endpoint, u.verdict, this.clock.now() + this.options.probeLeaseMs);
    else if (u.kind === 'hold') this.adoptHold(endpoint, u.until);
    else if (u.kind === 'failing') this.failing.set(endpoint, this.clock.now() + STREAK_TTL_MS);
    else if (u.kind === 'outage_started') {
      if (endpoint.breaker.state !== 'closed') endpoint.adoptOutageStart(u.start);
    } else endpoint.adoptOutageEnd(u.lengthMs);
  }

  /** Reads the most recently used tracked endpoints (one only while the store is unreachable: a health check). */
  private async catchUp(): Promise<void> {
    const all = [...this.endpoints.all()];
    const limit = this.reachable ? this.options.maxReadsPerRound : 1;
    await Promise.all(all.slice(-limit).map((e) => this.readInto(e, false)));
  }

  private async runLoop(): Promise<void> {
    const { signal } = this.loop;
    while (!signal.aborted) {
      try {
        await this.clock.sleep(this.options.syncIntervalMs, signal, { unref: true });
      } catch {
        return;
      }
      await this.catchUp();
    }
  }

  private succeeded(): void {
    if (this.closed || (this.reachable && this.known)) return;
    const recovered = this.known;
    this.known = true;
    this.reachable = true;
    this.emit?.({ type: 'health_store', time: this.clock.now(), kind: 'reachable' });
    if (recovered) void this.catchUp();
  }

  private failed(error: unknown): void {
    if (!this.reachable || this.closed) return;
    this.reachable = false;
    const problem = error instanceof Error ? error.message : String(error);
    const now = this.clock.now();
    if (this.warnedAt === undefined || now - this.warnedAt >= WARN_EVERY_MS) {
      this.warnedAt = now;
      console.warn(
        `[mcp-resilience] the shared health store failed (${problem}); going on with local health`,
      );
    }
    this.emit?.({ type: 'health_store', time: this.clock.now(), kind: 'unreachable', problem });
  }

  private unreadableWarned = false;
  private unreadable(problem: string): void {
    if (!this.unreadableWarned) {
      this.unreadableWarned = true;
      console.warn(
        `[mcp-resilience] the shared health store holds data this version cannot read (${problem}); ignored`,
      );
    }
    this.emit?.({ type: 'health_store', time: this.clock.now(), kind: 'unreadable', problem });
  }

  private decided(endpoint: Endpoint, decision: FleetDecision, lagMs?: number): void {
    this.emit?.({
      type: 'fleet_decision',
      time: this.clock.now(),
      endpoint: endpoint.key,
      attributes: endpoint.breaker.attributes,
      decision,
      ...(lagMs === undefined ? {} : { lagMs }),
    });
  }
}

/** The breaker's state, read afresh (after a call that changed it). */
const stateOf = (b: { readonly state: BreakerState }): BreakerState => b.state;
