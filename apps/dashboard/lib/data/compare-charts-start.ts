import { chartsStart } from './data-start';
import type { Annotation, CompareGroup } from './types';

/**
 * Where compare mode's charts start: the earliest `chartsStart` of its groups (their calls and retries, and the
 * marks), so they start at the first data like the overview's charts. Undefined when no group has data or marks.
 */
export function compareChartsStart(
  groups: readonly CompareGroup[],
  annotations: readonly Annotation[],
): number | undefined {
  const starts = groups
    .map((g) => chartsStart({ calls: g.calls, efficiency: g.efficiency }, annotations))
    .filter((t): t is number => t !== undefined);
  return starts.length === 0 ? undefined : Math.min(...starts);
}
