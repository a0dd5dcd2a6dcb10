/**
 * The mark a `ResilienceError` carries, so that the classifier can tell one (also from another copy of this
 * package: `Symbol.for`) without importing the error class: classification comes before the errors thrown at
 * the outer edge.
 */
export const RESILIENCE_ERROR_BRAND: unique symbol = Symbol.for('@mcp-resilience/ResilienceError') as never;

/** True for a value marked as a `ResilienceError`; never throws (a hostile proxy included). */
export function hasResilienceBrand(value: unknown): boolean {
  try {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[RESILIENCE_ERROR_BRAND] === true
    );
  } catch {
    return false;
  }
}
