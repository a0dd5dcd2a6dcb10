import { isPlainObject } from './readOptions.js';

/**
 * Grouped options over grouped defaults: a group given on both sides is merged member by member (the options
 * win), anything else is the options' value. Neither side is changed. A group that is not an object is kept as
 * given, for its validation to name it.
 */
export function mergeGroups<T extends object>(defaults: T, options: T): T {
  const merged: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const base = merged[name];
    merged[name] = isPlainObject(base) && isPlainObject(value) ? mergeGroups(base, value) : value;
  }
  return merged as T;
}
