import type { CallOptions } from '../call/CallOptions.js';
import type { ClassificationRule } from '../classify/ClassificationRule.js';
import type { ResilienceOptions } from '../options.js';

/**
 * What a variant may change: the classification rules and the policy settings. The clock, the recorder and the
 * shared state limits stay the instance's.
 */
export type VariantOptions = Omit<ResilienceOptions, 'clock' | 'recorder' | 'experiment'>;

/**
 * Which key a call is assigned to a variant by (a stable hash of it, so the same key always lands in the same
 * variant): `'call'` (every call on its own, from an evenly spread sequence: any run of calls gets the split),
 * `'endpoint'` (the breaker key: one server stays in one variant),
 * `'session'` (the call's `sessionId`, `mcp.session.id` in telemetry; a call without one, on a stdio server or the
 * 2026-07-28 protocol, is assigned per call, with a one-time console warning), or a function of the call's
 * options returning the key, for example the conversation id held in an `AsyncLocalStorage`.
 */
export type VariantKey = 'call' | 'endpoint' | 'session' | ((call: CallOptions) => string | undefined);

/** The experiment options of `createResilience` and `withResilience` (canary and shadow). All optional. */
export interface ExperimentOptions {
  /**
   * Named variants of the options (rules, classifier, policy settings), each merged over the shared options. A
   * variant's `rules` run before the shared `rules`. Each variant has its own breakers, budgets and backoff
   * history, so one arm's failures never change the other's decisions. Requires `split`.
   * @example { control: {}, candidate: { rules: [newRule], maxAttempts: 2 } }
   */
  readonly variants?: Readonly<Record<string, VariantOptions>>;
  /** The share of traffic of each variant, summing to 1. @example { control: 0.95, candidate: 0.05 } */
  readonly split?: Readonly<Record<string, number>>;
  /** Which key assigns a call to a variant. Default `'call'`. */
  readonly variantKey?: VariantKey;
  /**
   * A shadow classifier: these rules, in place of the variant's, over the shared ones. It classifies every failed
   * attempt again without acting; its verdict is recorded (a `shadow_classified` event, the
   * `mcp.resilience.shadow.disagreements` counter and a span event). Nothing runs on the success path; a shadow
   * that throws is ignored. Needs a `recorder`.
   */
  readonly shadowRules?: readonly ClassificationRule[];
}

export const EXPERIMENT_KEYS = ['variants', 'split', 'variantKey', 'shadowRules'] as const;

/** Whether any experiment option is given. */
export function hasExperiment(options: object | undefined): boolean {
  if (options === undefined || options === null) return false;
  const o = options as Record<string, unknown>;
  return EXPERIMENT_KEYS.some((key) => o[key] !== undefined);
}
