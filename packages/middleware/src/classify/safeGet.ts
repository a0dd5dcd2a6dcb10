/**
 * Reads `value[key]` without ever throwing: `undefined` for primitives, `null`, throwing getters and Proxies
 * whose traps throw. Inherited properties are read too (`DOMException#name` is a prototype getter).
 */
export function safeGet(value: unknown, key: PropertyKey): unknown {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
  try {
    return (value as Record<PropertyKey, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** `Array.isArray` that never throws (it throws on a revoked Proxy). */
export function safeIsArray(value: unknown): value is readonly unknown[] {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}

/** A string read from `value[key]`, or `undefined`. */
export function safeString(value: unknown, key: PropertyKey): string | undefined {
  const read = safeGet(value, key);
  return typeof read === 'string' ? read : undefined;
}
