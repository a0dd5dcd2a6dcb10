import { type Check, integer } from '../checkOptions.js';
import { isErrorType } from '../classify/Classification.js';
import { isPlainObject } from './readOptions.js';

/** Checks shared by the option groups of `withResilience` (`mcp`) and of the framework adapters (`guard`). */

export const nonEmptyString: Check = (v) =>
  typeof v === 'string' && v !== '' ? undefined : 'a non-empty string';

const booleansByTool = (v: unknown) =>
  isPlainObject(v) && Object.values(v).every((b) => typeof b === 'boolean');

/** `idempotency`: one of `modes`, or `{ default?: mode, tools: { <tool>: boolean } }`. */
export const idempotency =
  (...modes: string[]): Check =>
  (v) => {
    if (modes.includes(v as string)) return undefined;
    const { default: base, tools, ...rest } = isPlainObject(v) ? v : { tools: undefined };
    const ok =
      isPlainObject(v) &&
      Object.keys(rest).length === 0 &&
      (base === undefined || modes.includes(base as string)) &&
      booleansByTool(tools);
    const listed = modes.map((m) => `'${m}'`).join(', ');
    return ok
      ? undefined
      : `one of ${listed}, or { default?: ${listed.replaceAll(', ', ' | ')}, tools: { <tool>: boolean } }`;
  };

/** The `negativeCache` group, by resolved key. */
export const negativeCacheChecks = {
  negativeCacheTtlMs: (v: unknown) =>
    typeof v === 'number' && Number.isFinite(v) && v >= 0
      ? undefined
      : 'a finite number >= 0 (milliseconds; 0 turns the cache off)',
  negativeCacheMaxEntries: integer(1),
  negativeCacheTypes: (v: unknown) =>
    Array.isArray(v) && v.every(isErrorType) ? undefined : 'an array of error types (ERROR_TYPES)',
} satisfies Record<string, Check>;

/** A list of `allowed` strings. */
export const listOf =
  (allowed: readonly string[]): Check =>
  (v) =>
    Array.isArray(v) && v.every((x) => typeof x === 'string' && allowed.includes(x))
      ? undefined
      : `an array of ${allowed.map((o) => `'${o}'`).join(', ')}`;

/** The error thrown when core options come with a shared pipeline (`resilience`). */
export function sharedPipelineError(owner: string, core: object): TypeError | undefined {
  const given = Object.keys(core).filter(
    (k) => k !== 'rules' && (core as Record<string, unknown>)[k] !== undefined,
  );
  if (given.length === 0) return undefined;
  return new TypeError(
    `${owner}: options ${given.join(', ')} cannot be combined with 'resilience'; give them to createResilience()`,
  );
}
