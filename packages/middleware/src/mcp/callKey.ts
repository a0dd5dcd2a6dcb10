import { createHash } from 'node:crypto';

/** Canonical arguments longer than this are not cached: the key would cost more than it saves. */
export const MAX_CANONICAL_ARGUMENTS_CHARS = 64 * 1024;
/** Deeper arguments are not cached. */
const MAX_DEPTH = 32;

/**
 * The identity of a `tools/call` for the negative cache: a SHA-256 over the server, the tool and the arguments
 * in canonical JSON (object keys sorted, so `{a, b}` and `{b, a}` are the same call). `undefined` when the
 * arguments cannot be keyed: larger than {@link MAX_CANONICAL_ARGUMENTS_CHARS}, nested deeper than 32, cyclic,
 * or holding values JSON cannot carry (functions, bigints, symbols).
 */
export function callKey(server: string, tool: string, args: unknown): string | undefined {
  const canonical = canonicalJson(args ?? {});
  if (canonical === undefined) return undefined;
  return createHash('sha256')
    .update(JSON.stringify([server, tool]))
    .update('\n')
    .update(canonical)
    .digest('hex');
}

/** JSON with object keys sorted, or `undefined` when the value is too large, too deep or not plain JSON data. */
export function canonicalJson(value: unknown): string | undefined {
  const parts: string[] = [];
  let size = 0;
  const seen = new Set<object>();
  const push = (text: string) => {
    size += text.length;
    parts.push(text);
    return size <= MAX_CANONICAL_ARGUMENTS_CHARS;
  };
  const write = (v: unknown, depth: number): boolean => {
    if (depth > MAX_DEPTH) return false;
    if (v === null || typeof v === 'boolean' || typeof v === 'string') return push(JSON.stringify(v));
    if (typeof v === 'number') return push(Number.isFinite(v) ? JSON.stringify(v) : 'null');
    if (typeof v !== 'object') return false;
    if (seen.has(v)) return false;
    seen.add(v);
    let ok: boolean;
    if (Array.isArray(v)) {
      ok = push('[');
      for (let i = 0; ok && i < v.length; i++) {
        ok = (i === 0 || push(',')) && write(v[i] === undefined ? null : v[i], depth + 1);
      }
      ok = ok && push(']');
    } else {
      const keys = Object.keys(v)
        .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
        .sort();
      ok = push('{');
      for (let i = 0; ok && i < keys.length; i++) {
        const key = keys[i] as string;
        ok =
          (i === 0 || push(',')) &&
          push(`${JSON.stringify(key)}:`) &&
          write((v as Record<string, unknown>)[key], depth + 1);
      }
      ok = ok && push('}');
    }
    seen.delete(v);
    return ok;
  };
  return write(value, 0) ? parts.join('') : undefined;
}
