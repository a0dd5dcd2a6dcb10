import { createHash } from 'node:crypto';
import type { Attrs } from '../otlp/model';
import { stableKey } from './ingest-context';

/*
 * The key of a cumulative series (its row in `cumulative_state`): a SHA-256 of what identifies it, so a key is
 * 45 bytes whatever the attributes (128 resource attributes of 1 KiB made every key of their series 130 KB, and
 * 400 such series ~200 MB of database per request). The resource part is hashed once per resource.
 */

/** Keys of the current format start with this (older keys were the identifying text itself). */
export const HASHED_PREFIX = 'h:';

const input = (metric: string, scope: string) => `\u0000${JSON.stringify([metric, scope])}\u0000`;

/** The series keys of one resource (its `stableKey`): `key(metric, scope, pointAttributes)`. */
export function seriesKeys(resourceKey: string): (metric: string, scope: string, attrs: Attrs) => string {
  const base = createHash('sha256').update(resourceKey);
  return (metric, scope, attrs) =>
    HASHED_PREFIX + base.copy().update(input(metric, scope)).update(stableKey(attrs)).digest('base64url');
}

/**
 * The hashed key of a key of the older format (`metric \0 resource \0 scope \0 attributes`), or undefined when
 * it cannot be split unambiguously (a NUL inside one of its parts).
 */
export function rehashedKey(old: string): string | undefined {
  const parts = old.split('\u0000');
  if (parts.length !== 4) return undefined;
  const [metric, resourceKey, scope, attrsKey] = parts as [string, string, string, string];
  return (
    HASHED_PREFIX +
    createHash('sha256').update(resourceKey).update(input(metric, scope)).update(attrsKey).digest('base64url')
  );
}
