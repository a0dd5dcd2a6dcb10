import { isErrorType } from '../classify/Classification.js';

/** Validates the negative-cache options (shared by `withResilience` and the framework adapters). */
export function checkNegativeCacheOptions(
  options: { negativeCacheTtlMs?: unknown; negativeCacheMaxEntries?: unknown; negativeCacheTypes?: unknown },
  fail: (name: string, allowed: string, value: unknown) => void,
): void {
  const { negativeCacheTtlMs: ttl, negativeCacheMaxEntries: max, negativeCacheTypes: types } = options;
  if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl < 0)) {
    fail('negativeCacheTtlMs', 'a finite number >= 0 (milliseconds; 0 turns the cache off)', ttl);
  }
  if (max !== undefined && (!Number.isInteger(max) || (max as number) < 1)) {
    fail('negativeCacheMaxEntries', 'an integer >= 1', max);
  }
  if (types !== undefined && (!Array.isArray(types) || !types.every(isErrorType))) {
    fail('negativeCacheTypes', 'an array of error types (ERROR_TYPES)', types);
  }
}
