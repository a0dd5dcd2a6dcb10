/**
 * The name of `known` closest to `given`, when it is close enough to be what was meant: the same name in another
 * case, or one at most a third of its length away in edits (insert, delete, replace, swap two neighbours; at
 * least two edits, one for names of three characters or less). Undefined when nothing is that close.
 */
export function closestName(given: string, known: readonly string[]): string | undefined {
  const wanted = given.toLowerCase();
  const limit = wanted.length <= 3 ? 1 : Math.max(2, Math.floor(wanted.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(wanted, name.toLowerCase(), limit);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Optimal string alignment distance (Damerau-Levenshtein without repeated edits of one substring), capped. */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  const far = cap + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] ?? far) + 1, (row[j - 1] ?? far) + 1, (previous[j - 1] ?? far) + cost);
      const swapped = i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1];
      if (swapped) d = Math.min(d, (before[j - 2] ?? far) + 1);
      row.push(d);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length] ?? far;
}
