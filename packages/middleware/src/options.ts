import { type Clock, realClock } from './Clock.js';
import { boolean, type Check, hasMethods, integer, number, oneOf } from './checkOptions.js';
import type { ClassificationRule } from './classify/ClassificationRule.js';
import type { Jitter } from './decide/backoffDelay.js';
import type { ExperimentOptions } from './experiment/ExperimentOptions.js';
import type { HealthStore } from './health/store/HealthStore.js';
import { coreFromFlat, TOP_LEVEL_NAMES } from './options/fromFlat.js';
import { CORE_PATHS } from './options/optionPaths.js';
import { readOptions } from './options/readOptions.js';
import { noopRecorder } from './record/noopRecorder.js';
import type { Recorder } from './record/Recorder.js';

export type { Jitter } from './decide/backoffDelay.js';
export type { ResilienceOptions } from './options/ResilienceOptions.js';

/**
 * The core options by their flat names: the resolved shape the pipeline reads (`ResolvedOptions`), and the names
 * of the first versions, still accepted for now. Users give the grouped ones (`options/ResilienceOptions.ts`;
 * each key's grouped path is in `options/optionPaths.ts`). An option added here needs a default, a check and a path.
 */
export interface FlatResilienceOptions {
  /** Attempts per call in total, the first one included. */
  readonly maxAttempts?: number;
  /** First backoff delay. */
  readonly backoffBaseMs?: number;
  /** Growth of the backoff delay per retry. */
  readonly backoffFactor?: number;
  /** Longest backoff delay. */
  readonly backoffMaxMs?: number;
  /** `full`: random in [0, d]; `decorrelated`: random in [base, 3 × previous]; `none`: d. */
  readonly jitter?: Jitter;
  /** Learn per endpoint how long its failures take to recover, and wait at least that long. */
  readonly adaptiveBackoff?: boolean;
  /** Recovery durations remembered per endpoint. */
  readonly adaptiveHistorySize?: number;
  /** Added to a `Retry-After` so the retry does not arrive a hair early. */
  readonly retryAfterMarginMs?: number;
  /** A `Retry-After` longer than this is not waited for: the call fails at once. */
  readonly retryAfterMaxMs?: number;
  /** Deadline of a whole call (all attempts and waits). Undefined: no deadline. */
  readonly timeoutMs?: number;
  /** Time limit of one attempt. Undefined: none beyond the call's deadline. */
  readonly attemptTimeoutMs?: number;
  /** Retries allowed per endpoint as a share of its calls in the budget window. */
  readonly budgetRatio?: number;
  /** Retries per second always allowed per endpoint, so a quiet endpoint can still retry. */
  readonly budgetMinRetriesPerSecond?: number;
  /** The budget's sliding window. */
  readonly budgetWindowMs?: number;
  /** Failures in a row that open a breaker. */
  readonly breakerConsecutiveFailures?: number;
  /** Failure rate over the window that opens a breaker. */
  readonly breakerFailureRate?: number;
  /** The breaker's sliding window for the failure rate. */
  readonly breakerWindowMs?: number;
  /** Calls in the window before the failure rate counts. */
  readonly breakerMinimumCalls?: number;
  /**
   * How long a breaker stays open before its first probe; doubles per failed probe. When the endpoint's past
   * outages say when this one usually ends (`adaptiveBackoff`), the probe goes then instead, within
   * [`breakerBreakMs`, `breakerMaxBreakMs`].
   */
  readonly breakerBreakMs?: number;
  /** Longest time between two probes while calls wait for a verdict (at least `breakerBreakMs` when only that is given). */
  readonly breakerMaxBreakMs?: number;
  /**
   * Longest time between two probes while no call waits: the delay grows with the outage's age (the next probe
   * when the outage has aged by a quarter) up to this. At least `breakerMaxBreakMs`.
   */
  readonly breakerIdleMaxBreakMs?: number;
  /** Random spread of a break, as a share of it (0.1 = ±10%). */
  readonly breakerJitter?: number;
  /** Probes admitted at once while half-open; as many successes close the breaker. */
  readonly breakerHalfOpenProbes?: number;
  /** Time limit of a probe: a probe that has not finished by then fails. */
  readonly breakerProbeTimeoutMs?: number;
  /**
   * A call that meets an open breaker waits for its verdict, sending nothing, when recovery before its limit is
   * likely (`breakerWaitOdds`) and the next probe comes before that limit; released in a ramp once a probe
   * succeeds. Otherwise, and with `false` (fail-fast), it fails at once with `circuit_open` and `retryAfterMs`.
   */
  readonly breakerWait?: boolean;
  /**
   * The least chance of recovery within a call's limit at which the call waits at an open breaker (see
   * `recoveryOdds`: from the outage's age and the endpoint's past outages). A call without a limit of its own
   * waits only while the chance is at least 1/2.
   */
  readonly breakerWaitOdds?: number;
  /**
   * The least chance of recovery within its limit at which a waiting call keeps waiting, judged again as the
   * outage ages and the call's time runs out: it leaves, with `circuit_open`, at the moment the chance falls below
   * this (see `oddsFallBelowMs`). At most `breakerWaitOdds`. A call without a limit of its own keeps waiting only
   * while the chance is at least 1/2.
   */
  readonly breakerStayOdds?: number;
  /** The limit of a call without a deadline (`timeoutMs`, a signal's SDK timeout), from its start, for waits at a breaker. */
  readonly breakerWaitLimitMs?: number;
  /**
   * How long a retry is held at most while the endpoint looks down (failures of other calls in a row) but its
   * breaker has not opened. Default: `breakerMaxBreakMs`.
   */
  readonly breakerHoldMaxMs?: number;
  /** Calls waiting at most per endpoint; beyond, a call is shed at once (reason `shed`). */
  readonly breakerMaxWaiting?: number;
  /** Endpoints tracked at most (breaker, budget, history); the least recently used is dropped beyond. */
  readonly maxEndpoints?: number;
  /** Classification rules that run before the built-in ones. */
  readonly rules?: readonly ClassificationRule[];
  /**
   * Endpoint health shared with the other replicas of a fleet (`createRedisHealthStore` from
   * `@mcp-resilience/middleware/redis`, or any `HealthStore`): breaker verdicts, outage history, `Retry-After`
   * holds and one probe fleet-wide. Calls never wait on it (but a new endpoint's first call, for its first read,
   * at most `fleetFirstReadWaitMs`); when it fails, the process goes on with its local health.
   */
  readonly healthStore?: HealthStore;
  /** This process's id in the shared store (default: a random UUID). */
  readonly fleetReplicaId?: string;
  /** Period of the catch-up read of the shared store (announcements carry the news in between). */
  readonly fleetSyncIntervalMs?: number;
  /** Lease of the fleet's probe: how long the others wait if its owner dies (default: the probe's time limit + 1 s). */
  readonly fleetProbeLeaseMs?: number;
  /** How long a new endpoint's first call waits at most for the fleet's health of it (only while the store answers). */
  readonly fleetFirstReadWaitMs?: number;
  /** Time, sleep and randomness. */
  readonly clock?: Clock;
  /** The telemetry port. */
  readonly recorder?: Recorder;
}

type Unset = 'timeoutMs' | 'attemptTimeoutMs' | 'healthStore' | 'fleetReplicaId' | 'fleetProbeLeaseMs';
export type ResolvedOptions = Required<Omit<FlatResilienceOptions, Unset>> &
  Pick<FlatResilienceOptions, Unset>;

/** Every default, by resolved key (the public, grouped form is `options/defaults.ts`). */
export const defaults = {
  maxAttempts: 6,
  backoffBaseMs: 100,
  backoffFactor: 2,
  backoffMaxMs: 30_000,
  jitter: 'full',
  adaptiveBackoff: true,
  adaptiveHistorySize: 20,
  retryAfterMarginMs: 100,
  retryAfterMaxMs: 60_000,
  timeoutMs: undefined,
  attemptTimeoutMs: undefined,
  budgetRatio: 0.2,
  budgetMinRetriesPerSecond: 1,
  budgetWindowMs: 10_000,
  breakerConsecutiveFailures: 5,
  breakerFailureRate: 0.5,
  breakerWindowMs: 30_000,
  breakerMinimumCalls: 10,
  breakerBreakMs: 500,
  breakerMaxBreakMs: 2_000,
  breakerIdleMaxBreakMs: 30_000,
  breakerJitter: 0.2,
  breakerHalfOpenProbes: 1,
  breakerProbeTimeoutMs: 10_000,
  breakerWait: true,
  breakerWaitOdds: 0.25,
  breakerStayOdds: 0.01,
  breakerWaitLimitMs: 60_000,
  breakerHoldMaxMs: 2_000,
  breakerMaxWaiting: 1_000,
  maxEndpoints: 10_000,
  rules: [],
  healthStore: undefined,
  fleetReplicaId: undefined,
  fleetSyncIntervalMs: 1_000,
  fleetProbeLeaseMs: undefined,
  fleetFirstReadWaitMs: 250,
  clock: realClock,
  recorder: noopRecorder,
} as const satisfies {
  readonly [K in keyof Required<FlatResilienceOptions>]: Required<FlatResilienceOptions>[K] | undefined;
};

const rules: Check = (v) =>
  Array.isArray(v) &&
  v.every((r) => typeof r === 'function' || (typeof r === 'object' && r !== null && 'classify' in r))
    ? undefined
    : 'an array of rules (functions, or objects with `classify`)';

/** What each option's value must be, by resolved key. */
export const checks: { readonly [K in keyof FlatResilienceOptions]-?: Check } = {
  maxAttempts: integer(1),
  backoffBaseMs: number(0),
  backoffFactor: number(1),
  backoffMaxMs: number(0),
  jitter: oneOf('full', 'decorrelated', 'none'),
  adaptiveBackoff: boolean,
  adaptiveHistorySize: integer(1),
  retryAfterMarginMs: number(0),
  retryAfterMaxMs: number(0),
  timeoutMs: number(0, Number.POSITIVE_INFINITY, true),
  attemptTimeoutMs: number(0, Number.POSITIVE_INFINITY, true),
  budgetRatio: number(0),
  budgetMinRetriesPerSecond: number(0),
  budgetWindowMs: number(0, Number.POSITIVE_INFINITY, true),
  breakerConsecutiveFailures: integer(1),
  breakerFailureRate: number(0, 1, true),
  breakerWindowMs: number(0, Number.POSITIVE_INFINITY, true),
  breakerMinimumCalls: integer(1),
  breakerBreakMs: number(0, Number.POSITIVE_INFINITY, true),
  breakerMaxBreakMs: number(0, Number.POSITIVE_INFINITY, true),
  breakerIdleMaxBreakMs: number(0, Number.POSITIVE_INFINITY, true),
  breakerJitter: number(0, 1),
  breakerHalfOpenProbes: integer(1),
  breakerProbeTimeoutMs: number(0, Number.POSITIVE_INFINITY, true),
  breakerWait: boolean,
  breakerWaitOdds: number(0, 1),
  breakerStayOdds: number(0, 1),
  breakerWaitLimitMs: number(0),
  breakerHoldMaxMs: number(0),
  breakerMaxWaiting: integer(1),
  maxEndpoints: integer(1),
  rules,
  healthStore: hasMethods('read', 'write', 'acquireProbe', 'releaseProbe', 'subscribe', 'close'),
  fleetReplicaId: (v) =>
    typeof v === 'string' && v.length > 0 && v.length <= 128 ? undefined : 'a string of 1 to 128 characters',
  fleetSyncIntervalMs: number(10),
  fleetProbeLeaseMs: number(1),
  fleetFirstReadWaitMs: number(0, 5_000),
  clock: hasMethods('now', 'sleep', 'random'),
  recorder: hasMethods('record'),
};

/** The experiment group, checked as a whole by `validateExperiment`. */
const experimentChecks: Readonly<Record<string, Check>> = {
  variants: () => undefined,
  split: () => undefined,
  variantKey: () => undefined,
  shadowRules: () => undefined,
};

/**
 * Reads the options of `createResilience` (grouped, or by their flat names) into their resolved keys; throws a
 * `TypeError` naming the first bad option by its full path (`breaker.breakMs`), its value and what is allowed.
 */
export function readCoreOptions(options: unknown, prefix = ''): FlatResilienceOptions & ExperimentOptions {
  const owner = 'createResilience';
  const grouped = coreFromFlat(owner, options === undefined ? {} : options);
  const all = { ...checks, ...experimentChecks };
  return readOptions(owner, grouped, CORE_PATHS, all, prefix, TOP_LEVEL_NAMES.createResilience);
}

/** Merges read options (`readCoreOptions`) over `defaults`, with the defaults that follow other options. */
export function resolveOptions(options: FlatResilienceOptions = {}): ResolvedOptions {
  const resolved = { ...defaults } as Record<string, unknown>;
  for (const [key, value] of Object.entries(options)) if (value !== undefined) resolved[key] = value;
  // A first break above the default cap, the cap left unset: the cap follows (no probe interval ever shrinks).
  if (options.breakerMaxBreakMs === undefined && options.breakerBreakMs !== undefined) {
    resolved.breakerMaxBreakMs = Math.max(defaults.breakerMaxBreakMs, options.breakerBreakMs);
  }
  // The hold defaults to the probe cap; the idle cap never goes below it.
  if (options.breakerHoldMaxMs === undefined) resolved.breakerHoldMaxMs = resolved.breakerMaxBreakMs;
  if (options.breakerIdleMaxBreakMs === undefined) {
    resolved.breakerIdleMaxBreakMs = Math.max(
      defaults.breakerIdleMaxBreakMs,
      resolved.breakerMaxBreakMs as number,
    );
  }
  // The odds to keep waiting never exceed the odds to start.
  if (options.breakerStayOdds === undefined) {
    resolved.breakerStayOdds = Math.min(defaults.breakerStayOdds, resolved.breakerWaitOdds as number);
  }
  const r = resolved as ResolvedOptions;
  atLeast(r, 'breakerWaitOdds', 'breakerStayOdds');
  atLeast(r, 'backoffMaxMs', 'backoffBaseMs');
  atLeast(r, 'breakerIdleMaxBreakMs', 'breakerMaxBreakMs');
  atLeast(r, 'breakerMaxBreakMs', 'breakerBreakMs');
  return r;
}

type NumberKey =
  | 'breakerWaitOdds'
  | 'breakerStayOdds'
  | 'backoffMaxMs'
  | 'backoffBaseMs'
  | 'breakerIdleMaxBreakMs'
  | 'breakerMaxBreakMs'
  | 'breakerBreakMs';

/** Throws when option `big` is below option `small`, naming both by their grouped paths. */
function atLeast(r: ResolvedOptions, big: NumberKey, small: NumberKey): void {
  if (r[big] >= r[small]) return;
  throw new TypeError(
    `createResilience: option '${CORE_PATHS[big]}' must be >= ${CORE_PATHS[small]} (${r[small]}), got ${r[big]}`,
  );
}
