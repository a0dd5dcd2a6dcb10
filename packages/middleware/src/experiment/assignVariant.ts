import { variantHash } from './variantHash.js';

/** The variants with the upper end of their share of [0, 1), in the order given. */
export type SplitTable = ReadonlyArray<{ readonly name: string; readonly upTo: number }>;

export function splitTable(split: Readonly<Record<string, number>>): SplitTable {
  let upTo = 0;
  const table: Array<{ name: string; upTo: number }> = [];
  for (const [name, weight] of Object.entries(split)) {
    if (weight <= 0) continue; // a variant at 0 gets no traffic, even from rounding leftovers
    upTo += weight;
    table.push({ name, upTo });
  }
  return table;
}

/** The variant of a key: where its stable hash falls in the split. The last variant takes rounding leftovers. */
export function assignVariant(table: SplitTable, key: string): string {
  const x = variantHash(key);
  for (const { name, upTo } of table) if (x < upTo) return name;
  return (table.at(-1) as { name: string }).name;
}
