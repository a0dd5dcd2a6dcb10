import type { InstanceExport } from './covered-time';

/**
 * The data's own resolution: the longest steady export interval of the instances in a window (an instance
 * whose interval was seen only once, e.g. two manual flushes, does not count). A chart bucket finer than it
 * holds 0 exports, then several: a sawtooth the traffic does not have. Undefined without a steady interval.
 */
export function dataInterval(exports: readonly InstanceExport[] | undefined): number | undefined {
  const steady = (exports ?? []).filter((e) => e.steady === true && e.exportMs > 0);
  return steady.length === 0 ? undefined : Math.max(...steady.map((e) => e.exportMs));
}
