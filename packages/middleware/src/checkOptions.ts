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

/** A value as an error message shows it. */
export function show(v: unknown): string {
  if (typeof v === 'string') return `'${v}'`;
  if (typeof v === 'function') return 'a function';
  if (v instanceof RegExp) return String(v);
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * Checks every option given against its `checks` entry; throws a `TypeError` that names the function, the bad
 * option, its value and what is allowed (or the options it knows, for an unknown one).
 */
export function checkOptions(owner: string, options: unknown, checks: Readonly<Record<string, Check>>): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`${owner}: options must be an object, got ${show(options)}`);
  }
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const check = checks[key];
    if (!check) {
      throw new TypeError(
        `${owner}: unknown option '${key}'; known options: ${Object.keys(checks).join(', ')}`,
      );
    }
    const allowed = check(value);
    if (allowed) throw new TypeError(`${owner}: option '${key}' must be ${allowed}, got ${show(value)}`);
  }
}
