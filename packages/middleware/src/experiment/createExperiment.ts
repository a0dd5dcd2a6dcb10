import type { AttemptContext, CallOptions } from '../call/CallOptions.js';
import type { Resilience } from '../createResilience.js';
import type { BreakerSnapshot } from '../decide/BreakerState.js';
import type { FlatResilienceOptions } from '../options.js';
import { callAttributes } from '../record/callAttributes.js';
import { noopRecorder } from '../record/noopRecorder.js';
import { assignVariant, splitTable } from './assignVariant.js';
import { createShadow } from './createShadow.js';
import { EXPERIMENT_KEYS, type ExperimentOptions, type VariantKey } from './ExperimentOptions.js';
import { validateExperiment } from './validateExperiment.js';
import { variantHash } from './variantHash.js';

/** A resilience pipeline that runs each call on one of several variants. */
export interface ExperimentResilience extends Resilience {
  /** The variant names, in the order given. */
  readonly variants: readonly string[];
  /**
   * The variant a call with these options runs on (with `variantKey: 'call'`, each use draws anew). A call whose
   * `variant` is already set (as `withResilience` draws it before its negative cache) runs on that one without a
   * new draw.
   */
  variantOf(call?: CallOptions): string;
}

const noOptions: CallOptions = Object.freeze({});

/**
 * Builds the experiment around `create` (which is `createResilience`): one pipeline per variant, each with its
 * own breakers, budgets and backoff history, and its own copy of the shadow classifier. Every call carries its
 * `variant` in its context, so its spans and metrics say it (a call whose `variant` is set runs on it:
 * `withResilience` draws it before its negative cache). The breaker metrics
 * observed per breaker (state, transitions, calls waiting) stay per endpoint, without the variant: the state
 * gauge shows the worst of the variants' breakers (as for several instances), so the Breakers page keeps one
 * breaker per server; `breakers()` tells them apart.
 * Without `variants` (a shadow alone) there is one pipeline and no variant attribute.
 */
export function createExperiment(
  options: FlatResilienceOptions & ExperimentOptions,
  create: (options: FlatResilienceOptions) => Resilience,
): Resilience | ExperimentResilience {
  const recorder = options.recorder ?? noopRecorder;
  validateExperiment(options, recorder !== noopRecorder);
  const shared: Record<string, unknown> = { ...options };
  for (const key of EXPERIMENT_KEYS) delete shared[key];
  const base = shared as FlatResilienceOptions;
  const { variants, split, shadowRules } = options;

  const build = (name: string | undefined, overrides: FlatResilienceOptions): Resilience => {
    const own = overrides.rules ?? [];
    const rules = [...own, ...(base.rules ?? [])];
    let r = recorder;
    if (shadowRules !== undefined) {
      const shadow = createShadow(shadowRules, own.length + 1);
      rules.unshift(shadow.rule);
      r = shadow.wrap(recorder);
    }
    try {
      return create({ ...base, ...overrides, rules, recorder: r });
    } catch (error) {
      if (name === undefined || !(error instanceof TypeError)) throw error;
      throw new TypeError(error.message.replace(/option '/, `option 'experiment.variants.${name}.`));
    }
  };

  if (variants === undefined || split === undefined) return build(undefined, {});

  const names = Object.keys(variants);
  const pipelines = new Map(names.map((name) => [name, build(name, variants[name] ?? {})]));
  const table = splitTable(split);
  const keyOf = keyFunction(options.variantKey ?? 'call', options.clock?.random ?? Math.random);
  const variantOf = (call: CallOptions = noOptions) => assignVariant(table, keyOf(call));

  return {
    variants: names,
    variantOf,
    execute<T>(fn: (context: AttemptContext) => T | Promise<T>, call: CallOptions = noOptions): Promise<T> {
      // Already assigned (withResilience draws before its negative cache): no second draw.
      const pinned = call.variant;
      const variant = pinned !== undefined && pipelines.has(pinned) ? pinned : variantOf(call);
      const pipeline = pipelines.get(variant) as Resilience;
      return pipeline.execute(fn, pinned === variant ? call : Object.assign({}, call, { variant }));
    },
    breakers(): BreakerSnapshot[] {
      return [...pipelines].flatMap(([variant, p]) =>
        p
          .breakers()
          .map((b) => ({ ...b, attributes: callAttributes({ attributes: b.attributes, variant }) })),
      );
    },
    // The control's (first variant's): the clock and recorder are shared.
    options: (pipelines.get(names[0] as string) as Resilience).options,
    async close() {
      await Promise.all([...pipelines.values()].map((p) => p.close()));
    },
  };
}

/** The warning, once per experiment, when `variantKey: 'session'` meets a call without a session. */
export const SESSIONLESS_WARNING =
  'mcp-resilience: option \'variantKey: "session"\' met a call without `mcp.session.id` (a stdio server, or the ' +
  '2026-07-28 protocol, which has no sessions): such calls are assigned per call, as with `variantKey: "call"`. ' +
  'For a sticky assignment, give `variantKey` a function returning your own key (a conversation id).';

/** The golden ratio's fractional part: its multiples mod 1 spread over [0, 1) as evenly as any sequence can. */
const GOLDEN = 0.6180339887498949;

/**
 * The per-call draws of one pipeline, in [0, 1): `start`, then a golden-ratio step each call (a Weyl sequence),
 * so that every run of consecutive calls gets its split share within a call or two, from the first call on.
 * A hash of a call counter starting at 1 gave every process the same first draws: the demo's 15 short-lived
 * pipelines (5 agents × 3 servers, ~70 calls each) all drew the first ~70 values of one sequence, 12% of which
 * fall in a 10% arm. The start is random (`clock.random`), so processes do not move in step either.
 */
export function perCallDraws(start: number): () => number {
  let x = start >= 0 && start < 1 ? start : 0;
  return () => {
    x += GOLDEN;
    if (x >= 1) x -= 1;
    return x;
  };
}

/**
 * The stable hash in [0, 1) of a call's assignment key. A key function that throws or returns nothing falls back
 * to the call. `'session'` without a session id falls back to the call too (not to the endpoint: every call to
 * a sessionless server would land in one variant, turning the canary into 0% or 100%), with a one-time warning.
 */
function keyFunction(variantKey: VariantKey, random: () => number): (call: CallOptions) => number {
  const perCall = perCallDraws(random());
  const endpoint = (call: CallOptions) => variantHash(`endpoint:${call.endpoint ?? 'default'}`);
  if (variantKey === 'call') return perCall;
  if (variantKey === 'endpoint') return endpoint;
  if (variantKey === 'session') {
    let warned = false;
    return (call) => {
      const session = call.sessionId;
      if (session) return variantHash(`session:${session}`);
      if (!warned) {
        warned = true;
        try {
          globalThis.console?.warn(SESSIONLESS_WARNING);
        } catch {
          // a warning never breaks the call
        }
      }
      return perCall();
    };
  }
  return (call) => {
    try {
      const key = variantKey(call);
      if (typeof key === 'string' && key !== '') return variantHash(`key:${key}`);
    } catch {
      // a key function that throws never breaks the call
    }
    return perCall();
  };
}
