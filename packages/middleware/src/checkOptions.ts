import { unknownOption } from './options/unknownOption.js';

/** Says what a value must be (`'an integer >= 1'`), or undefined when it is fine. */
export type Check = (value: unknown) => string | undefined;

export const integer =
  (min: number): Check =>
  (v) =>
    Number.isInteger(v) && (v as number) >= min ? undefined : `an integer >= ${min}`;

export const number =
  (min: number, max = Number.POSITIVE_INFINITY, minExclusive = false): Check =>
  (v) =>
    typeof v === 'number' && !Number.isNaN(v) && (minExclusive ? v > min : v >= min) && v <= max
      ? undefined
      : `a number ${minExclusive ? '>' : '>='} ${min}${max === Number.POSITIVE_INFINITY ? '' : ` and <= ${max}`}`;

export const oneOf =
  (...values: string[]): Check =>
  (v) =>
    values.includes(v as string) ? undefined : `one of ${values.map((x) => `'${x}'`).join(', ')}`;

export const boolean: Check = (v) => (typeof v === 'boolean' ? undefined : 'a boolean');

export const hasMethods =
  (...names: string[]): Check =>
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    names.every((n) => typeof (v as Record<string, unknown>)[n] === 'function')
      ? undefined
      : `an object with ${names.map((n) => `${n}()`).join(', ')}`;

/** Characters of a value an error message shows. */
const SHOWN = 80;

/**
 * A value as an error message shows it, whatever it is: never throws, never calls anything of the value's own
 * (a cycle, a bigint, a symbol, a throwing getter, `toJSON` or `toString`, a Proxy all print).
 */
export function show(v: unknown): string {
  try {
    const text = describe(v);
    return text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text;
  } catch {
    return `a value that cannot be printed (${typeof v})`;
  }
}

function describe(v: unknown): string {
  if (typeof v === 'string') return `'${v}'`;
  if (typeof v === 'bigint') return `${v}n (a bigint)`;
  if (typeof v === 'symbol') return v.toString();
  if (typeof v === 'function') return 'a function';
  if (typeof v !== 'object' || v === null) return String(v);
  if (Object.prototype.toString.call(v) === '[object RegExp]') return RegExp.prototype.toString.call(v);
  try {
    const json = JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));
    if (json !== undefined) return json;
  } catch {
    // a cycle, a throwing getter or toJSON: said without reading it
  }
  return Array.isArray(v) ? 'an array that cannot be printed' : 'an object that cannot be printed';
}

/** What `check` says of `value`; a check that throws reading the value (a throwing getter) says so. */
function allowedOrReason(check: Check, value: unknown): string | undefined {
  try {
    return check(value);
  } catch {
    return 'a value that can be read (reading it threw)';
  }
}

/**
 * Checks every option given against its `checks` entry; throws a `TypeError` that names the function, the bad
 * option, its value and what is allowed (or the options it knows, for an unknown one). An option whose getter
 * throws is named too.
 */
export function checkOptions(owner: string, options: unknown, checks: Readonly<Record<string, Check>>): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`${owner}: options must be an object, got ${show(options)}`);
  }
  for (const key of Object.keys(options)) {
    let value: unknown;
    try {
      value = (options as Record<string, unknown>)[key];
    } catch {
      throw new TypeError(`${owner}: option '${key}' cannot be read (its getter threw)`);
    }
    if (value === undefined) continue;
    const check = checks[key];
    if (!check) throw unknownOption(owner, key, { names: Object.keys(checks) });
    const allowed = allowedOrReason(check, value);
    if (allowed) throw new TypeError(`${owner}: option '${key}' must be ${allowed}, got ${show(value)}`);
  }
}
