import type { CallOptions } from '../call/CallOptions.js';
import type { Resilience } from '../createResilience.js';
import type { ExperimentResilience } from './createExperiment.js';

/**
 * The variant a call runs on in an experiment (`undefined` without one): `pinned` (a fallback call's primary
 * variant) when it names one, else the experiment's draw for the call's options. Drawn before a negative cache
 * is asked, so that one arm's cached failures never answer the other arm's repeats. With `variantKey: 'call'`
 * every call draws anew, so a model's repeat is a new call: it is answered from the negative cache only when it
 * draws the variant that cached the failure, and otherwise runs (and is counted) on the variant it drew.
 */
export function callVariant(resilience: Resilience, call: CallOptions, pinned?: unknown): string | undefined {
  const experiment = resilience as Partial<ExperimentResilience>;
  if (typeof experiment.variantOf !== 'function' || !Array.isArray(experiment.variants)) return undefined;
  if (typeof pinned === 'string' && experiment.variants.includes(pinned)) return pinned;
  return experiment.variantOf(call);
}
