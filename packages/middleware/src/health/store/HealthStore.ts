import type { BreakerState } from '../../decide/BreakerState.js';

/**
 * The port through which a fleet of replicas shares endpoint health (Redis, Valkey, or the in-memory store of
 * the tests and the simulation). Every method is asynchronous and may fail; the caller (`FleetSync`) never
 * lets a call wait on it, bounds each operation in time, and falls back to the replica's local health.
 */
export interface HealthStore {
  /** Reads what the fleet knows of `endpoint` (`undefined`: nothing, or nothing readable). */
  read(endpoint: string): Promise<ReadResult>;
  /** Shares one piece of health: stored (each key with a TTL) and announced to the other replicas. */
  write(endpoint: string, update: HealthUpdate, from: string): Promise<void>;
  /**
   * Takes the endpoint's probe lease for `owner` if nobody holds it (atomic): one probe fleet-wide per
   * interval; the lease expires after `leaseMs` if its owner dies.
   */
  acquireProbe(endpoint: string, owner: string, leaseMs: number): Promise<ProbeLease>;
  /** Gives the lease back early (only if `owner` still holds it). */
  releaseProbe(endpoint: string, owner: string): Promise<void>;
  /**
   * The fleet's unhealthy failures in a row for `endpoint`: a counter with a TTL of `ttlMs`, refreshed on each
   * failure (atomic). `failed: true` adds one and answers the new count; `false` (a success) resets it, answers 0.
   * Optional: a store without it shares no failure evidence (each replica trips on its own failures).
   */
  failureStreak?(endpoint: string, failed: boolean, ttlMs: number): Promise<number>;
  /**
   * Listens to the other replicas' updates (and to the store's reachability). Returns the unsubscribe
   * function. Messages that cannot be read are reported as `{ kind: 'unreadable' }`.
   */
  subscribe(listener: (message: StoreMessage) => void): () => void;
  /** Closes the connection(s); further operations fail. */
  close(): Promise<void>;
}

/** A breaker's verdict as the fleet sees it. `until`: when open, the time of the next probe. */
export interface FleetVerdict {
  readonly state: BreakerState;
  /** Epoch milliseconds of the transition. */
  readonly since: number;
  readonly until?: number;
  /** The replica that reached the verdict. */
  readonly by: string;
}

/** Everything the fleet shares about one endpoint. Plain data; each piece optional. */
export interface SharedHealth {
  readonly verdict?: FleetVerdict;
  /** Epoch milliseconds at which the running outage began (absent: no outage running). */
  readonly outageStart?: number;
  /** Lengths of the past outages in milliseconds, oldest first (bounded). */
  readonly outages: readonly number[];
  /** Epoch milliseconds before which the endpoint asked not to be called (`Retry-After`). */
  readonly holdUntil?: number;
  /** The probe lease, when someone holds it. */
  readonly probe?: { readonly owner: string; readonly until: number };
}

/** One piece of health a replica shares. */
export type HealthUpdate =
  | { readonly kind: 'verdict'; readonly verdict: FleetVerdict }
  | { readonly kind: 'outage_started'; readonly start: number }
  | { readonly kind: 'outage_ended'; readonly start: number; readonly lengthMs: number }
  | { readonly kind: 'hold'; readonly until: number }
  /** A failure streak began (announced only, nothing stored): the others' next success resets it. */
  | { readonly kind: 'failing' };

export type ReadResult =
  | { readonly kind: 'health'; readonly health: SharedHealth }
  | { readonly kind: 'empty' }
  | { readonly kind: 'unreadable'; readonly problem: string };

export type ProbeLease =
  | { readonly owned: true; readonly until: number }
  | { readonly owned: false; readonly owner: string; readonly until: number };

export type StoreMessage =
  | {
      readonly kind: 'update';
      readonly endpoint: string;
      readonly from: string;
      readonly update: HealthUpdate;
    }
  | { readonly kind: 'unreadable'; readonly problem: string }
  /** The store became reachable (again) or unreachable: after `up`, whatever was missed must be read again. */
  | { readonly kind: 'reachability'; readonly reachable: boolean; readonly problem?: string };

/** Past outage lengths the store keeps per endpoint. */
export const MAX_SHARED_OUTAGES = 20;
/** Longest endpoint key and replica id the store accepts (longer ones are unreadable). */
export const MAX_KEY_LENGTH = 512;
