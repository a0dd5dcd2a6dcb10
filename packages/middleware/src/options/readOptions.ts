import { type Check, show } from '../checkOptions.js';
import { type KnownNames, unknownOption } from './unknownOption.js';

/** Where each option is given: its key in the resolved (flat) options → its path in the grouped ones. */
export type PathTable = Readonly<Record<string, string>>;

/** The grouped shape of a table: a group name → its members; a leaf is the option's resolved key. */
interface Tree {
  readonly [name: string]: Tree | string;
}

const trees = new WeakMap<PathTable, Tree>();

function treeOf(paths: PathTable): Tree {
  let tree = trees.get(paths);
  if (tree) return tree;
  const root: Record<string, unknown> = {};
  for (const [key, path] of Object.entries(paths)) {
    const names = path.split('.');
    let node = root;
    for (const name of names.slice(0, -1)) {
      node[name] ??= {};
      node = node[name] as Record<string, unknown>;
    }
    node[names.at(-1) as string] = key;
  }
  tree = root as Tree;
  trees.set(paths, tree);
  return tree;
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads grouped options into their resolved keys, checking every value given: throws a `TypeError` that names
 * the owner and the option by its full path (`breaker.breakMs`), its value and what is allowed; an unknown option
 * is named with the ones known beside it (at the top level: `topLevel`, the flat names too), and the closest of
 * them when one is close. `undefined` values are skipped.
 */
export function readOptions(
  owner: string,
  options: unknown,
  paths: PathTable,
  checks: Readonly<Record<string, Check>>,
  prefix = '',
  topLevel?: KnownNames,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const given = options === undefined ? {} : options;
  readGroup({ owner, checks, out, topLevel, topPrefix: prefix }, given, treeOf(paths), prefix);
  return out;
}

interface Reading {
  readonly owner: string;
  readonly checks: Readonly<Record<string, Check>>;
  readonly out: Record<string, unknown>;
  /** The names known at the top level, when they are more than the table's groups (the flat names). */
  readonly topLevel: KnownNames | undefined;
  readonly topPrefix: string;
}

function readGroup(reading: Reading, group: unknown, tree: Tree, prefix: string): void {
  const { owner } = reading;
  if (!isPlainObject(group)) {
    const what = prefix === '' ? 'options' : `option '${prefix.slice(0, -1)}'`;
    throw new TypeError(
      `${owner}: ${what} must be an object of ${Object.keys(tree).join(', ')}, got ${show(group)}`,
    );
  }
  for (const name of Object.keys(group)) {
    const path = prefix + name;
    const value = readValue(owner, group, name, path);
    if (value === undefined) continue;
    const node = tree[name];
    if (node === undefined) {
      const top = prefix === reading.topPrefix ? reading.topLevel : undefined;
      throw unknownOption(owner, path, top ?? { names: Object.keys(tree) }, prefix.slice(0, -1));
    }
    if (typeof node !== 'string') {
      readGroup(reading, value, node, `${path}.`);
      continue;
    }
    const allowed = allowedOrReason(reading.checks[node], value);
    if (allowed) throw new TypeError(`${owner}: option '${path}' must be ${allowed}, got ${show(value)}`);
    reading.out[node] = value;
  }
}

function readValue(owner: string, group: Record<string, unknown>, name: string, path: string): unknown {
  try {
    return group[name];
  } catch {
    throw new TypeError(`${owner}: option '${path}' cannot be read (its getter threw)`);
  }
}

/** What `check` says of `value`; a check that throws reading the value (a throwing getter) says so. */
function allowedOrReason(check: Check | undefined, value: unknown): string | undefined {
  try {
    return check?.(value);
  } catch {
    return 'a value that can be read (reading it threw)';
  }
}
