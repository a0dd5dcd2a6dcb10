import { show } from '../checkOptions.js';
import { CORE_PATHS, GUARD_PATHS, MCP_PATHS } from './optionPaths.js';
import { isPlainObject, type PathTable } from './readOptions.js';
import type { KnownNames } from './unknownOption.js';

/**
 * The flat option names of the first versions (`breakerBreakMs`, `negativeCacheTtlMs`, `nonRetryableAs`, ...),
 * still accepted for now and translated here, in this one module, into the grouped options (the table is in the
 * README). A flat name given together with its grouped path is an error. Dropping the flat names = deleting this
 * module and its three calls, and keeping only the grouped `names` of `TOP_LEVEL_NAMES` (moved beside the paths).
 */

/** The flat names of a group's options, each read at its grouped path, but for `idempotency` (translated by value). */
const flatOf = ({ idempotency: _byValue, ...paths }: PathTable): PathTable => paths;

/** The flat names of `withResilience` (`idempotency`, `toolIdempotency`, `nonRetryableAs`: by value). */
const MCP_FLAT = flatOf(MCP_PATHS);

/** The flat names of the framework adapters (`idempotent`: by value). */
const GUARD_FLAT = flatOf(GUARD_PATHS);

/** The flat names translated by their value rather than moved to a path. */
const MCP_BY_VALUE = ['idempotency', 'toolIdempotency', 'nonRetryableAs'] as const;
const GUARD_BY_VALUE = ['idempotent'] as const;

/** A table's top-level names: the first group of each path (or the option, when it is not in a group). */
const topOf = (table: PathTable): string[] => [
  ...new Set(Object.values(table).map((path) => path.split('.')[0] ?? path)),
];

/** The flat names a table moves (an option whose path is its own name is not a flat name). */
const movedBy = (table: PathTable): string[] => Object.keys(table).filter((flat) => table[flat] !== flat);

/**
 * The names each entry takes at its top level, grouped and flat, read from the very tables that translate the
 * flat names here, so the list an unknown option's message gives cannot miss an accepted name. `resilience` is
 * the shared pipeline of `withResilience` and the adapters (`{ resilience: createResilience(...) }`).
 */
export const TOP_LEVEL_NAMES = {
  createResilience: { names: topOf(CORE_PATHS), flat: movedBy(CORE_PATHS) },
  withResilience: {
    names: [...topOf(CORE_PATHS), ...topOf(MCP_PATHS), 'resilience'],
    flat: [...movedBy(CORE_PATHS), ...movedBy(MCP_FLAT), ...MCP_BY_VALUE],
  },
  guard: {
    names: [...topOf(CORE_PATHS), ...topOf(GUARD_PATHS), 'resilience'],
    flat: [...movedBy(CORE_PATHS), ...movedBy(GUARD_FLAT), ...GUARD_BY_VALUE],
  },
} as const satisfies Readonly<Record<string, KnownNames>>;

/** The core options (`createResilience`) with their flat names moved to their groups. */
export function coreFromFlat<T>(owner: string, options: T): T {
  return move(owner, options, CORE_PATHS) as T;
}

/** The options of `withResilience` with their flat names moved to `mcp` (the core ones stay for `createResilience`). */
export function mcpFromFlat<T>(owner: string, options: T): T {
  const moved = move(owner, options, MCP_FLAT);
  if (!isPlainObject(moved) || !MCP_BY_VALUE.some((name) => Object.hasOwn(moved, name))) return moved as T;
  const out = moved === options ? copy(moved) : moved;
  const { idempotency: mode, toolIdempotency: tools, nonRetryableAs: as } = out;
  if (mode !== undefined || tools !== undefined) {
    delete out.idempotency;
    delete out.toolIdempotency;
    const base = mode === 'assume-idempotent' ? 'always' : mode;
    const flatName = mode === undefined ? 'toolIdempotency' : 'idempotency';
    const value = tools === undefined ? base : { ...(base === undefined ? {} : { default: base }), tools };
    set(owner, out, 'mcp.idempotency', value, flatName);
  }
  if (as !== undefined) {
    delete out.nonRetryableAs;
    if (as !== 'throw' && as !== 'result') {
      throw new TypeError(
        `${owner}: option 'nonRetryableAs' must be 'throw' or 'result', got ${show(as)} (grouped: 'non_retryable' in mcp.resultOn)`,
      );
    }
    if (as === 'result') addNonRetryable(out);
  }
  return out as T;
}

/** The options of the framework adapters with their flat names moved to `guard`. */
export function guardFromFlat<T>(owner: string, options: T): T {
  const moved = move(owner, options, GUARD_FLAT);
  if (!isPlainObject(moved) || !GUARD_BY_VALUE.some((name) => Object.hasOwn(moved, name))) return moved as T;
  const out = moved === options ? copy(moved) : moved;
  const { idempotent } = out;
  delete out.idempotent;
  const value =
    typeof idempotent === 'boolean'
      ? idempotent
        ? 'always'
        : 'never'
      : isPlainObject(idempotent)
        ? { default: 'never', tools: idempotent }
        : idempotent;
  if (value !== undefined) set(owner, out, 'guard.idempotency', value, 'idempotent');
  return out as T;
}

/** `nonRetryableAs: 'result'` is `'non_retryable'` in `mcp.resultOn` (a `resultOn` that is not a list is kept for its validation). */
function addNonRetryable(out: Record<string, unknown>): void {
  if (out.mcp !== undefined && !isPlainObject(out.mcp)) return;
  const group = out.mcp === undefined ? {} : copy(out.mcp);
  const given = group.resultOn;
  if (given === undefined || Array.isArray(given)) group.resultOn = ['non_retryable', ...(given ?? [])];
  out.mcp = group;
}

/** A copy of `options` with every flat name of `table` moved to its path; `options` itself is never changed. */
function move(owner: string, options: unknown, table: PathTable): unknown {
  if (!isPlainObject(options)) return options;
  let out: Record<string, unknown> | undefined;
  for (const [flat, path] of Object.entries(table)) {
    if (flat === path || !Object.hasOwn(options, flat)) continue;
    let value: unknown;
    try {
      value = options[flat];
    } catch {
      throw new TypeError(`${owner}: option '${flat}' cannot be read (its getter threw)`);
    }
    out ??= copy(options);
    delete out[flat];
    if (value !== undefined) set(owner, out, path, value, flat);
  }
  return out ?? options;
}

/** Sets `path` in `root`, copying each group on the way; the path already given as well is an error. */
function set(owner: string, root: Record<string, unknown>, path: string, value: unknown, flat: string): void {
  const names = path.split('.');
  let node = root;
  for (const name of names.slice(0, -1)) {
    const group = node[name];
    // A group that is not an object: its validation names it.
    if (group !== undefined && !isPlainObject(group)) return;
    const next = group === undefined ? {} : copy(group);
    node[name] = next;
    node = next;
  }
  const leaf = names.at(-1) as string;
  if (node[leaf] !== undefined) {
    throw new TypeError(`${owner}: option '${flat}' is the flat name of '${path}'; give only '${path}'`);
  }
  node[leaf] = value;
}

/** A shallow, changeable copy that keeps getters as getters (a throwing one throws where it is read and named). */
function copy(o: object): Record<string, unknown> {
  const descriptors = Object.getOwnPropertyDescriptors(o) as Record<string, PropertyDescriptor>;
  for (const d of Object.values(descriptors)) {
    d.configurable = true;
    if (!d.get && !d.set) d.writable = true;
  }
  return Object.defineProperties({}, descriptors) as Record<string, unknown>;
}
