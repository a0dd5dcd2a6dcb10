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
  breakerStayOdds: 'gate.stayOdds',
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

/** Where each `mcp` option is given, by its resolved key. */
export const MCP_PATHS = {
  server: 'mcp.server',
  idempotency: 'mcp.idempotency',
  reconnect: 'mcp.reconnect',
  breakerScope: 'mcp.breakerScope',
  fetch: 'mcp.fetch',
  resultOn: 'mcp.resultOn',
  negativeCacheTtlMs: 'mcp.negativeCache.ttlMs',
  negativeCacheMaxEntries: 'mcp.negativeCache.maxEntries',
  negativeCacheTypes: 'mcp.negativeCache.types',
  fallbacks: 'mcp.fallbacks',
} as const;

/** Where each `guard` option is given, by its resolved key. */
export const GUARD_PATHS = {
  server: 'guard.server',
  idempotency: 'guard.idempotency',
  negativeCacheTtlMs: 'guard.negativeCache.ttlMs',
  negativeCacheMaxEntries: 'guard.negativeCache.maxEntries',
  negativeCacheTypes: 'guard.negativeCache.types',
} as const;
