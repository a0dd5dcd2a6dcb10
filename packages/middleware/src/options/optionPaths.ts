import type { ExperimentOptions } from '../experiment/ExperimentOptions.js';
import type { FlatResilienceOptions } from '../options.js';

/**
 * Where each core option is given in the grouped options, by its key in the resolved options (the flat shape
 * the pipeline reads, `ResolvedOptions`). These keys are also the flat names still accepted (see `fromFlat.ts`).
 * An option added to `options.ts` must get its path here (the compiler says so).
 */
export const CORE_PATHS = {
  maxAttempts: 'retry.maxAttempts',
  backoffBaseMs: 'retry.backoff.baseMs',
  backoffFactor: 'retry.backoff.factor',
  backoffMaxMs: 'retry.backoff.maxMs',
  jitter: 'retry.backoff.jitter',
  adaptiveBackoff: 'retry.backoff.adaptive',
  adaptiveHistorySize: 'retry.backoff.historySize',
  retryAfterMarginMs: 'retry.retryAfter.marginMs',
  retryAfterMaxMs: 'retry.retryAfter.maxMs',
  timeoutMs: 'deadline.callMs',
  attemptTimeoutMs: 'deadline.attemptMs',
  budgetRatio: 'budget.ratio',
  budgetMinRetriesPerSecond: 'budget.minPerSecond',
  budgetWindowMs: 'budget.windowMs',
  breakerConsecutiveFailures: 'breaker.consecutiveFailures',
  breakerFailureRate: 'breaker.failureRate',
  breakerWindowMs: 'breaker.windowMs',
  breakerMinimumCalls: 'breaker.minimumCalls',
  breakerBreakMs: 'breaker.breakMs',
  breakerMaxBreakMs: 'breaker.maxBreakMs',
  breakerIdleMaxBreakMs: 'breaker.idleMaxBreakMs',
  breakerJitter: 'breaker.jitter',
  breakerHalfOpenProbes: 'breaker.halfOpenProbes',
  breakerProbeTimeoutMs: 'breaker.probeTimeoutMs',
  breakerWait: 'gate.wait',
  breakerWaitOdds: 'gate.waitOdds',
  breakerWaitLimitMs: 'gate.waitLimitMs',
  breakerHoldMaxMs: 'gate.holdMaxMs',
  breakerMaxWaiting: 'gate.maxWaiting',
  healthStore: 'fleet.store',
  fleetReplicaId: 'fleet.replicaId',
  fleetSyncIntervalMs: 'fleet.syncIntervalMs',
  fleetProbeLeaseMs: 'fleet.probeLeaseMs',
  fleetFirstReadWaitMs: 'fleet.firstReadWaitMs',
  maxEndpoints: 'maxEndpoints',
  rules: 'rules',
  clock: 'clock',
  recorder: 'recorder',
  variants: 'experiment.variants',
  split: 'experiment.split',
  variantKey: 'experiment.variantKey',
  shadowRules: 'experiment.shadowRules',
} as const satisfies { readonly [K in keyof (FlatResilienceOptions & ExperimentOptions)]-?: string };

export type CoreKey = keyof typeof CORE_PATHS;
