import type { CallOptions } from '../call/CallOptions.js';
import type { Resilience } from '../createResilience.js';
import type { ExperimentResilience } from './createExperiment.js';

/**
 * The variant a call runs on in an experiment (`undefined` without one): the call's `variant` (a fallback call
 * keeps its primary's) when the experiment has it, else the experiment's draw for the call. Drawn before a
 * negative cache is asked, so that one arm's cached failures never answer the other arm's repeats. With
 * `variantKey: 'call'` every call draws anew, so a model's repeat is a new call: it is answered from the negative
 * cache only when it draws the variant that cached the failure, and otherwise runs on the variant it drew.
 */
export function callVariant(resilience: Resilience, call: CallOptions): string | undefined {
  const experiment = resilience as Partial<ExperimentResilience>;
  if (typeof experiment.variantOf !== 'function' || !Array.isArray(experiment.variants)) return undefined;
  if (call.variant !== undefined && experiment.variants.includes(call.variant)) return call.variant;
  return experiment.variantOf(call);
}
