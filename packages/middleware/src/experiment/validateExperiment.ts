import { show } from '../checkOptions.js';
import type { ExperimentOptions } from './ExperimentOptions.js';

const OWNER = 'createResilience';
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const KEYS = "'call', 'endpoint', 'session' or a function returning a string";

const fail = (option: string, message: string): never => {
  throw new TypeError(`${OWNER}: option 'experiment.${option}' ${message}`);
};

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks the experiment options; throws a `TypeError` naming the option and what is wrong. The variants' own
 * options are checked by `createResilience` itself, each under its variant's name.
 */
export function validateExperiment(options: ExperimentOptions, hasRecorder: boolean): void {
  const { variants, split, variantKey, shadowRules } = options;
  if (variants !== undefined) {
    if (!isRecord(variants))
      fail('variants', `must be an object of options by variant name, got ${show(variants)}`);
    const names = Object.keys(variants as object);
    if (names.length === 0) fail('variants', 'must name at least one variant');
    for (const name of names) {
      if (!NAME.test(name)) {
        fail('variants', `has an invalid variant name ${show(name)}: 1-64 letters, digits, '_', '.' or '-'`);
      }
      const v = (variants as Record<string, unknown>)[name];
      if (!isRecord(v)) fail(`variants.${name}`, `must be an object of options, got ${show(v)}`);
      for (const key of ['clock', 'recorder', 'variants', 'split', 'variantKey', 'shadowRules']) {
        if ((v as Record<string, unknown>)[key] !== undefined) {
          fail(`variants.${name}.${key}`, 'cannot be set per variant; give it once, beside `variants`');
        }
      }
    }
    if (split === undefined)
      fail('split', 'is required with `variants` (the share of each variant, summing to 1)');
  }
  if (split !== undefined) {
    if (variants === undefined) fail('split', 'needs `variants`');
    if (!isRecord(split)) fail('split', `must be an object of weights by variant name, got ${show(split)}`);
    const declared = Object.keys(variants as object);
    const given = Object.keys(split as object);
    const unknown = given.filter((n) => !declared.includes(n));
    if (unknown.length > 0) {
      fail(
        'split',
        `names unknown variants ${unknown.map(show).join(', ')}; variants: ${declared.map(show).join(', ')}`,
      );
    }
    const missing = declared.filter((n) => !given.includes(n));
    if (missing.length > 0) fail('split', `has no weight for ${missing.map(show).join(', ')}`);
    let sum = 0;
    for (const [name, w] of Object.entries(split as Record<string, unknown>)) {
      if (typeof w !== 'number' || !Number.isFinite(w) || w < 0 || w > 1) {
        fail(`split.${name}`, `must be a number >= 0 and <= 1, got ${show(w)}`);
      }
      sum += w as number;
    }
    if (Math.abs(sum - 1) > 1e-9) fail('split', `weights must sum to 1, got ${sum}`);
  }
  if (
    variantKey !== undefined &&
    typeof variantKey !== 'function' &&
    !['call', 'endpoint', 'session'].includes(variantKey as string)
  ) {
    fail('variantKey', `must be ${KEYS}, got ${show(variantKey)}`);
  }
  if (variantKey !== undefined && variants === undefined) fail('variantKey', 'needs `variants`');
  if (shadowRules !== undefined) {
    if (
      !Array.isArray(shadowRules) ||
      !shadowRules.every(
        (r) => typeof r === 'function' || (typeof r === 'object' && r !== null && 'classify' in r),
      )
    ) {
      fail(
        'shadowRules',
        `must be an array of rules (functions, or objects with \`classify\`), got ${show(shadowRules)}`,
      );
    }
    if (!hasRecorder) {
      fail('shadowRules', 'needs a `recorder`: the shadow verdicts are reported through it');
    }
  }
}
