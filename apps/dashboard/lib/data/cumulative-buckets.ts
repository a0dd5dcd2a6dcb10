import { MCP_RESILIENCE_CALL_DURATION_BUCKETS } from '@mcp-resilience/middleware/semconv';

/**
 * Per-bucket counts by upper bound (only non-empty buckets are stored) as a cumulative histogram over the
 * contract's bucket bounds and +Inf, as Prometheus holds it, so that quantiles interpolate the same way.
 */
export function cumulativeBuckets(
  buckets: ReadonlyMap<number, number>,
): Array<{ le: number; count: number }> {
  if (buckets.size === 0) return [];
  const bounds = [
    ...new Set([...MCP_RESILIENCE_CALL_DURATION_BUCKETS, ...buckets.keys(), Number.POSITIVE_INFINITY]),
  ].sort((a, b) => a - b);
  let running = 0;
  return bounds.map((le) => {
    running += buckets.get(le) ?? 0;
    return { le, count: running };
  });
}
