import { closestName } from './closestName.js';

/** The names an options object takes at one level: its own, and (at an entry's top) the flat names still accepted. */
export interface KnownNames {
  readonly names: readonly string[];
  readonly flat?: readonly string[];
}

/** Characters of an unknown name a message shows. */
const SHOWN = 80;

/**
 * The error for an option that is not known at its level: it names the option by its full path, the known name
 * it is closest to when one is close (`breakerBrakeMs` → `breakerBreakMs`), and every name known there.
 */
export function unknownOption(owner: string, path: string, known: KnownNames, group = ''): TypeError {
  const shown = path.length > SHOWN ? `${path.slice(0, SHOWN)}…` : path;
  const name = path.slice(group === '' ? 0 : group.length + 1);
  const close = name.length > SHOWN ? undefined : closestName(name, [...known.names, ...(known.flat ?? [])]);
  const meant = close === undefined ? '' : ` (did you mean '${group === '' ? '' : `${group}.`}${close}'?)`;
  const where = group === '' ? '' : ` of '${group}'`;
  const flat = known.flat?.length ? `; flat names of the first versions: ${known.flat.join(', ')}` : '';
  return new TypeError(
    `${owner}: unknown option '${shown}'${meant}; known options${where}: ${known.names.join(', ')}${flat}`,
  );
}

/** Refuses the first top-level name of `options` that `known` lacks (one given as `undefined` is skipped, as read). */
export function refuseUnknownNames(owner: string, options: object, known: KnownNames): void {
  const accepted = new Set([...known.names, ...(known.flat ?? [])]);
  for (const name of Object.keys(options)) {
    if (accepted.has(name)) continue;
    const d = Object.getOwnPropertyDescriptor(options, name);
    if (d && 'value' in d && d.value === undefined) continue;
    throw unknownOption(owner, name, known);
  }
}
