import { defaults as resolved } from '../options.js';
import { CORE_PATHS } from './optionPaths.js';

/** Every default of `createResilience`, grouped as the options are (`defaults.breaker.breakMs`). */
export const defaults = groupDefaults();

function groupDefaults() {
  const root: Record<string, unknown> = {};
  const groups = [root];
  for (const [key, value] of Object.entries(resolved)) {
    const names = CORE_PATHS[key as keyof typeof CORE_PATHS].split('.');
    let node = root;
    for (const name of names.slice(0, -1)) {
      if (node[name] === undefined) {
        node[name] = {};
        groups.push(node[name] as Record<string, unknown>);
      }
      node = node[name] as Record<string, unknown>;
    }
    node[names.at(-1) as string] = value;
  }
  for (const group of groups) Object.freeze(group);
  return root as unknown as Defaults;
}

type D = typeof resolved;
/** The type of `defaults`. */
export interface Defaults {
  readonly retry: {
    readonly maxAttempts: D['maxAttempts'];
    readonly backoff: {
      readonly baseMs: D['backoffBaseMs'];
      readonly factor: D['backoffFactor'];
      readonly maxMs: D['backoffMaxMs'];
      readonly jitter: D['jitter'];
      readonly adaptive: D['adaptiveBackoff'];
      readonly historySize: D['adaptiveHistorySize'];
    };
    readonly retryAfter: { readonly marginMs: D['retryAfterMarginMs']; readonly maxMs: D['retryAfterMaxMs'] };
  };
  readonly deadline: { readonly callMs: undefined; readonly attemptMs: undefined };
  readonly budget: {
    readonly ratio: D['budgetRatio'];
    readonly minPerSecond: D['budgetMinRetriesPerSecond'];
    readonly windowMs: D['budgetWindowMs'];
  };
  readonly breaker: {
    readonly consecutiveFailures: D['breakerConsecutiveFailures'];
    readonly failureRate: D['breakerFailureRate'];
    readonly windowMs: D['breakerWindowMs'];
    readonly minimumCalls: D['breakerMinimumCalls'];
    readonly breakMs: D['breakerBreakMs'];
    readonly maxBreakMs: D['breakerMaxBreakMs'];
    readonly idleMaxBreakMs: D['breakerIdleMaxBreakMs'];
    readonly jitter: D['breakerJitter'];
    readonly halfOpenProbes: D['breakerHalfOpenProbes'];
    readonly probeTimeoutMs: D['breakerProbeTimeoutMs'];
  };
  readonly gate: {
    readonly wait: D['breakerWait'];
    readonly waitOdds: D['breakerWaitOdds'];
    readonly stayOdds: D['breakerStayOdds'];
    readonly waitLimitMs: D['breakerWaitLimitMs'];
    readonly holdMaxMs: D['breakerHoldMaxMs'];
    readonly maxWaiting: D['breakerMaxWaiting'];
  };
  readonly fleet: {
    readonly store: undefined;
    readonly replicaId: undefined;
    readonly syncIntervalMs: D['fleetSyncIntervalMs'];
    readonly probeLeaseMs: undefined;
    readonly firstReadWaitMs: D['fleetFirstReadWaitMs'];
  };
  readonly maxEndpoints: D['maxEndpoints'];
  readonly rules: D['rules'];
  readonly clock: D['clock'];
  readonly recorder: D['recorder'];
}
