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

/** The variant of a point in [0, 1) (a key's stable hash): where it falls in the split. */
export function assignVariant(table: SplitTable, x: number): string {
  for (const { name, upTo } of table) if (x < upTo) return name;
  return (table.at(-1) as { name: string }).name; // rounding leftovers go to the last variant
}
